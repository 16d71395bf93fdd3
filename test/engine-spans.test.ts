/**
 * `LangfuseObserver({ sdkSpans: true })` in a real process, outside a test runner (the engine
 * keeps its default stdout exporter silent under NODE_ENV=test, so only a process without it
 * shows what a server prints): the engine's spans reach Langfuse as the run's second trace,
 * and nothing else. The process prints no `[Exporter] Export span ...` line.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engineTraceId, runIds } from '../src/observers/langfuse/ids.js';
import { type OtlpServer, otlpServer } from './support/otlp-server.js';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const CHILD = join(REPO_ROOT, 'test/fixtures/engine-spans/child.ts');
const TSX = join(REPO_ROOT, 'node_modules/tsx/dist/esm/index.mjs');

let langfuse: OtlpServer;
beforeEach(async () => {
  langfuse = await otlpServer();
});
afterEach(() => langfuse.close());

describe("the engine's own spans (sdkSpans)", () => {
  it('go to Langfuse as a second trace, and are not printed', { timeout: 60_000 }, async () => {
    // A server's environment: none of the test runner's settings (NODE_ENV=test above all).
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) =>
          key !== 'NODE_ENV' &&
          !key.startsWith('VITEST') &&
          !key.startsWith('SERVICE_') &&
          !key.startsWith('OPENAI_'),
      ),
    );
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', TSX, CHILD],
      {
        cwd: REPO_ROOT,
        env: { ...env, SERVICE_EVENTS: 'memory://', LANGFUSE_URL: langfuse.url },
        timeout: 45_000,
      },
    );
    expect(`${stdout}${stderr}`).not.toContain('[Exporter]');
    const runId = stdout.trim().split('\n').at(-1) ?? '';
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const traces = new Set(langfuse.spans().map((span) => span.traceId));
    expect(traces).toEqual(new Set([runIds(runId).traceId, engineTraceId(runId)]));
    const engine = langfuse.spans().filter((span) => span.traceId === engineTraceId(runId));
    expect(engine.map((span) => span.name)).toContain('find_slots');
  });
});
