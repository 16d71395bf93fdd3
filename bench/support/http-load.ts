/**
 * The load side of bench/http.bench.ts, run as a child process so that the client and the
 * model servers do not share the server's event loop. It starts one scripted model server
 * per connection (a connection sends its requests one after another, so its server's script
 * is consumed in order), tells the parent their URLs, then runs the phases it is sent.
 */
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { CONNECTIONS, LONG_TEXT, TURN, watchLastToken } from './load-shapes.js';

export type Phase =
  | { type: 'chat'; url: string; seconds: number; model: boolean }
  | { type: 'workflow'; url: string; seconds: number }
  /** Long answers from each of `urls` in turn (so machine noise falls on all), `count` each. */
  | { type: 'long'; urls: string[]; count: number; delayMs: number };

export interface PhaseResult {
  requests: number;
  seconds: number;
  latenciesMs: number[];
  failures: number;
  /** Long answers, per URL of the phase: the gaps, and the `data: {"delta"}` frames of each. */
  long?: { gapsMs: number[][]; deltaFrames: number[][] };
}

// When the model server wrote the frame with the long answer's last token.
const lastToken = watchLastToken();

async function chatLoad(
  phase: Extract<Phase, { type: 'chat' | 'workflow' }>,
  servers: ScriptedModelServer[],
) {
  const latencies: number[] = [];
  let failures = 0;
  let n = 0;
  // Ids unique across phases too: a session or thread reused by a later round would carry
  // the history of the earlier ones, and cost more each round.
  const phaseId = crypto.randomUUID().slice(0, 8);
  const until = performance.now() + phase.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      while (performance.now() < until) {
        const id = n++;
        if (phase.type === 'chat') servers[i]?.push(...TURN);
        const body =
          phase.type === 'chat'
            ? { session_id: `c${i}-${phaseId}-${id}`, message: 'When?' }
            : { n: id };
        // A workflow run names no thread: its thread is dropped when the run ends.
        const url = phase.type === 'chat' ? phase.url.replace('{i}', String(i)) : phase.url;
        const t0 = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await response.arrayBuffer();
        if (response.status === 200) latencies.push(performance.now() - t0);
        else failures++;
      }
    }),
  );
  return {
    requests: latencies.length,
    seconds: (performance.now() - started) / 1000,
    latenciesMs: latencies,
    failures,
  };
}

async function longAnswers(phase: Extract<Phase, { type: 'long' }>, server: ScriptedModelServer) {
  const gapsMs = phase.urls.map((): number[] => []);
  const deltaFrames = phase.urls.map((): number[] => []);
  let failures = 0;
  for (let k = 0; k < phase.count; k++) {
    for (let u = 0; u < phase.urls.length; u++) {
      const at = (u + k) % phase.urls.length; // each URL goes first as often as the others
      server.push({ text: LONG_TEXT, delayMs: phase.delayMs });
      lastToken.reset();
      const response = await fetch(phase.urls[at] as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          session_id: `long-${crypto.randomUUID()}`,
          message: 'Tell me everything.',
        }),
      });
      const text = await response.text(); // resolves at the last byte
      const done = performance.now();
      if (response.status === 200 && text.includes('event: done') && lastToken.at() > 0) {
        gapsMs[at]?.push(done - lastToken.at());
        deltaFrames[at]?.push(text.split('data: {"delta"').length - 1);
      } else failures++;
    }
  }
  const all = gapsMs.flat();
  return {
    requests: all.length,
    seconds: 0,
    latenciesMs: all,
    failures,
    long: { gapsMs, deltaFrames },
  };
}

async function main() {
  const servers = await Promise.all(
    Array.from({ length: CONNECTIONS + 1 }, () => scriptedModelServer([])),
  );
  const send = (message: unknown) => process.send?.(message);
  send({ type: 'models', urls: servers.map((s) => s.url) });
  process.on('message', async (phase: Phase | { type: 'exit' }) => {
    if (phase.type === 'exit') {
      await Promise.all(servers.map((s) => s.close()));
      process.exit(0);
    }
    const result =
      phase.type === 'long'
        ? await longAnswers(phase, servers[CONNECTIONS] as ScriptedModelServer)
        : await chatLoad(phase, servers);
    // The servers keep every request they answered, which nobody here reads: 30,000 chat
    // turns of them made this process's garbage collector slow down the phases after.
    for (const server of servers) server.requests.length = 0;
    send({ type: 'result', result });
  });
}

await main();
