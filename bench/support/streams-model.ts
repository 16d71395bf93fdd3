/**
 * The model side of bench/streams.bench.ts, a child process of its own so that writing
 * thousands of paced tokens a second costs neither the server under test nor the clients.
 * One scripted model server; the parent asks it for `count` answers before each phase (the
 * server's script is one step per model call, consumed in arrival order, and every answer of
 * a phase is the same text, so it does not matter which stream gets which).
 */
import { scriptedModelServer } from '../../src/testing/index.js';

export type ModelMessage =
  | { type: 'script'; count: number; tokens: string[]; delayMs: number }
  | { type: 'exit' };

const server = await scriptedModelServer([]);
process.send?.({ type: 'model', url: server.url });
process.on('message', async (message: ModelMessage) => {
  if (message.type === 'exit') {
    await server.close();
    process.exit(0);
  }
  // The requests the server keeps are never read here; 1,000 a phase would slow its GC.
  server.requests.length = 0;
  for (let i = 0; i < message.count; i++)
    server.push({ text: message.tokens, delayMs: message.delayMs });
  process.send?.({ type: 'scripted', remaining: server.remaining });
});
