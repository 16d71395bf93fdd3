/**
 * The load side of bench/front-ends.bench.ts, a child process so that the clients and the
 * model servers do not share the server's event loop. One scripted model server per
 * connection (a connection's requests go one after another, so its script is consumed in
 * order), plus one for the long answers. A phase names a protocol: the body it sends and
 * the marker that says its answer is whole are the protocol's own.
 */
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import { CONNECTIONS, LONG_TEXT, TURN, watchLastToken } from './load-shapes.js';

/**
 * How each surface is asked for one turn, and how its complete answer ends. `openaiSession`:
 * the OpenAI API with a `session_id`, so the service keeps the history as the native route does.
 */
export type Protocol = 'native' | 'openai' | 'openaiSession' | 'aiSdk';

export type Phase =
  | { type: 'chat'; protocol: Protocol; url: string; seconds: number }
  /** Long streamed answers from each target in turn (noise falls on all), `count` each. */
  | { type: 'long'; targets: { protocol: Protocol; url: string }[]; count: number };

export interface PhaseResult {
  requests: number;
  seconds: number;
  latenciesMs: number[];
  failures: number;
  /** Long answers, per target: ms from the model's last token to the client's last byte. */
  gapsMs?: number[][];
}

/** The request body of one turn on `session` (`agent`: the model name the OpenAI API asks for). */
export function turnBody(protocol: Protocol, session: string, agent: string, stream: boolean) {
  const message = 'When?';
  if (protocol === 'native') return { session_id: session, message };
  if (protocol === 'openai' || protocol === 'openaiSession') {
    const body = { model: agent, messages: [{ role: 'user', content: message }], stream };
    return protocol === 'openai' ? body : { ...body, session_id: session };
  }
  return {
    id: session,
    trigger: 'submit-message',
    messages: [{ id: `m-${session}`, role: 'user', parts: [{ type: 'text', text: message }] }],
  };
}

/** Whether a streamed answer's text is whole: its protocol's last frame arrived. */
function streamEnded(protocol: Protocol, text: string): boolean {
  return protocol === 'native' ? text.includes('event: done') : text.includes('data: [DONE]');
}

// When the model server wrote the frame with the long answer's last token.
const lastToken = watchLastToken();

async function chatLoad(phase: Extract<Phase, { type: 'chat' }>, servers: ScriptedModelServer[]) {
  const latencies: number[] = [];
  let failures = 0;
  let n = 0;
  const phaseId = crypto.randomUUID().slice(0, 8);
  const until = performance.now() + phase.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      while (performance.now() < until) {
        servers[i]?.push(...TURN);
        const body = turnBody(phase.protocol, `c${i}-${phaseId}-${n++}`, `chat-${i}`, false);
        const t0 = performance.now();
        const response = await fetch(phase.url.replace('{i}', String(i)), {
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
  const seconds = (performance.now() - started) / 1000;
  return { requests: latencies.length, seconds, latenciesMs: latencies, failures };
}

async function longAnswers(phase: Extract<Phase, { type: 'long' }>, server: ScriptedModelServer) {
  const gapsMs = phase.targets.map((): number[] => []);
  let failures = 0;
  for (let k = 0; k < phase.count; k++) {
    for (let t = 0; t < phase.targets.length; t++) {
      const at = (t + k) % phase.targets.length; // each target goes first as often as the others
      const { protocol, url } = phase.targets[at] as { protocol: Protocol; url: string };
      server.push({ text: LONG_TEXT, delayMs: 0 });
      lastToken.reset();
      const body = turnBody(protocol, `long-${crypto.randomUUID()}`, 'long', true);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text(); // resolves at the last byte
      const done = performance.now();
      if (response.status === 200 && streamEnded(protocol, text) && lastToken.at() > 0) {
        gapsMs[at]?.push(done - lastToken.at());
      } else failures++;
    }
  }
  const all = gapsMs.flat();
  return { requests: all.length, seconds: 0, latenciesMs: all, failures, gapsMs };
}

async function main() {
  const servers = await Promise.all(
    Array.from({ length: CONNECTIONS + 1 }, () => scriptedModelServer([])),
  );
  process.send?.({ type: 'models', urls: servers.map((s) => s.url) });
  process.on('message', async (phase: Phase | { type: 'exit' }) => {
    if (phase.type === 'exit') {
      await Promise.all(servers.map((s) => s.close()));
      process.exit(0);
    }
    const result =
      phase.type === 'long'
        ? await longAnswers(phase, servers[CONNECTIONS] as ScriptedModelServer)
        : await chatLoad(phase, servers);
    // Requests the servers keep and nobody reads would slow the later phases' GC.
    for (const server of servers) server.requests.length = 0;
    process.send?.({ type: 'result', result });
  });
}

await main();
