/**
 * Test support: a fresh scripted OpenAI-compatible server per test, with OPENAI_BASE_URL and
 * OPENAI_API_KEY pointing at it, so agent turns take the real client path.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';

/** Register the hooks; call the returned function inside a test for the current server. */
export function useScriptedModelServer(): () => ScriptedModelServer {
  let server: ScriptedModelServer | undefined;
  beforeEach(async () => {
    server = await scriptedModelServer([]);
    vi.stubEnv('OPENAI_BASE_URL', server.url);
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server?.close();
    server = undefined;
  });
  return () => {
    if (!server) throw new Error('useScriptedModelServer(): no server outside a test');
    return server;
  };
}
