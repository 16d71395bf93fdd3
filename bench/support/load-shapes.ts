/**
 * What the HTTP benchmarks' load sides send and script, shared by bench/support/http-load.ts
 * and bench/support/front-ends-load.ts (each a child process with its own model servers; this
 * module starts nothing on import, so either may import it, and so may the benches).
 */
import { ServerResponse } from 'node:http';
import type { ScriptedStep } from '../../src/testing/index.js';

/** Concurrent keep-alive connections, each with its own scripted model server. */
export const CONNECTIONS = 32;
/** The last token of the long answer: the model server's write of it starts the clock. */
export const LAST_TOKEN = 'tok999.';

/** A turn: one tool call, then a 20-token answer (zero delay). */
export const TURN: ScriptedStep[] = [
  { toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }] },
  { text: Array.from({ length: 20 }, (_, i) => `w${i} `) },
];

/** The long answer: 1,000 tokens ending with {@link LAST_TOKEN}. */
export const LONG_TEXT = [...Array.from({ length: 999 }, (_, i) => `tok${i} `), LAST_TOKEN];

/**
 * Start noting when this process's model servers write the long answer's last token; the
 * returned clock reads that moment (0: not since the last `reset()`). Patches
 * `ServerResponse.prototype.write`, so call it once, in a load process only.
 */
export function watchLastToken(): { at(): number; reset(): void } {
  let lastTokenAt = 0;
  const write = ServerResponse.prototype.write;
  ServerResponse.prototype.write = function (
    this: ServerResponse,
    ...args: Parameters<typeof write>
  ) {
    const [chunk] = args;
    if (typeof chunk === 'string' && chunk.includes(LAST_TOKEN)) lastTokenAt = performance.now();
    return write.apply(this, args);
  } as typeof write;
  return {
    at: () => lastTokenAt,
    reset: () => {
      lastTokenAt = 0;
    },
  };
}
