/**
 * What the protocol surfaces cost against the native chat route, over real sockets
 * (`npm run bench:front-ends`), measured side by side in one run:
 *
 * 1. JSON chat at 32 concurrent connections: `POST /v1/chat/completions` (the OpenAI API)
 *    against `POST /agents/{name}/chat`, for the same agent and turn (one tool call, then a
 *    20-token answer from `scriptedModelServer` at zero delay), every event recorded in the
 *    default SQLite store. Goal: the OpenAI route within 10% of the native route's requests/s.
 * 2. A streamed 1,000-token answer: the time from the model server writing its last token to
 *    the client reading the last byte, on `POST /agents/{name}/chat?stream=true`,
 *    `POST /v1/chat/completions` with `stream: true`, and `POST /agents/{name}/ui-chat` (the
 *    AI SDK UI message stream), in turn. Goal: each protocol within 10% of the native route.
 *
 * The clients and the model servers run in a child process (bench/support/front-ends-load.ts);
 * this process serves the app. Rounds alternate the order so machine noise falls on both
 * sides; the script rewrites its own section of bench/RESULTS.md.
 *
 * Run: `npm run bench:front-ends` (or `npx tsx bench/front-ends.bench.ts [rounds] [seconds]`).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve as listen } from '@hono/node-server';
import { OpenAIResponsesModel, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, Deck, tool } from '../src/index.js';
import type { Phase, PhaseResult, Protocol } from './support/front-ends-load.js';
import { CONNECTIONS } from './support/load-shapes.js';
import {
  loadAtStart,
  machineLine,
  median,
  percentile,
  table,
  writeSection,
} from './support/report.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const SECONDS = Number(process.argv[3] ?? 4);
const LONG_COUNT = 30;
const GOAL = 0.1;

setTracingDisabled(true);
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-front-ends-bench-'));
process.env.SERVICE_EVENTS = `sqlite://${join(dir, 'state.db')}`;
process.env.OPENAI_API_KEY = 'sk-bench';

const child = fork(new URL('./support/front-ends-load.ts', import.meta.url), [], {
  execArgv: ['--import', 'tsx'],
});
const nextMessage = <T>() =>
  new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
const { urls } = await nextMessage<{ urls: string[] }>();

const Day = z.object({ day: z.string() });
const findSlots = tool({
  name: 'find_slots',
  description: 'Free slots',
  parameters: Day,
  execute: async ({ day }) => `${day}: 9am, 2pm`,
});
const chatAgents = urls.slice(0, CONNECTIONS).map(
  (url, i) =>
    new Agent({
      name: `chat-${i}`,
      instructions: 'Book slots.',
      model: new OpenAIResponsesModel(
        new OpenAI({ apiKey: 'sk-bench', baseURL: url }),
        'gpt-4o-mini',
      ),
      tools: [findSlots],
    }),
);
// The long answer's agent names no model: it gets the deck's client, on the long answers' server.
process.env.OPENAI_BASE_URL = urls[CONNECTIONS];
const longAgent = new Agent({ name: 'long', instructions: 'Answer at length.' });
const deck = await new Deck({ agents: [...chatAgents, longAgent] }).open();
const server = listen({ fetch: deck.app().fetch, hostname: '127.0.0.1', port: 0 });
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

async function phase(p: Phase): Promise<PhaseResult> {
  child.send(p);
  return (await nextMessage<{ result: PhaseResult }>()).result;
}

type JsonProtocol = 'native' | 'openaiSession' | 'openai';
const chatUrls: Record<JsonProtocol, string> = {
  native: `${base}/agents/chat-{i}/chat`,
  openaiSession: `${base}/v1/chat/completions`,
  openai: `${base}/v1/chat/completions`,
};
const chat = (protocol: JsonProtocol, seconds = SECONDS): Phase => ({
  type: 'chat',
  protocol,
  url: chatUrls[protocol],
  seconds,
});
const load = loadAtStart();
const protocols: JsonProtocol[] = ['native', 'openaiSession', 'openai'];
for (const protocol of protocols) await phase(chat(protocol, 3)); // warm-up
const results: Record<JsonProtocol, PhaseResult[]> = { native: [], openaiSession: [], openai: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? protocols : [...protocols].reverse();
  for (const protocol of order) results[protocol].push(await phase(chat(protocol)));
  const show = (p: JsonProtocol) => `${p} ${rate(results[p].at(-1)).toFixed(0)}/s`;
  console.log(`round ${round + 1}: ${protocols.map(show).join(', ')}`);
}

const targets: { protocol: Protocol; url: string; label: string }[] = [
  {
    protocol: 'native',
    url: `${base}/agents/long/chat?stream=true`,
    label: 'native `?stream=true`',
  },
  {
    protocol: 'openai',
    url: `${base}/v1/chat/completions`,
    label: 'OpenAI chat completions, `stream: true`',
  },
  { protocol: 'aiSdk', url: `${base}/agents/long/ui-chat`, label: 'AI SDK UI message stream' },
];
await phase({ type: 'long', targets, count: 5 }); // warm-up of the streamed paths
const long = await phase({ type: 'long', targets, count: LONG_COUNT });

child.send({ type: 'exit' });
server.close();
await deck.close();
rmSync(dir, { recursive: true, force: true });
report();
process.exit(0); // keep-alive sockets of the model clients would hold the process open

function rate(r: PhaseResult | undefined): number {
  return r ? r.requests / r.seconds : 0;
}

function report() {
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const verdict = (ratio: number) => (Math.abs(ratio - 1) <= GOAL || ratio > 1 ? 'PASS' : 'FAIL');
  // Like for like: the OpenAI route with a session keeps the history, as the native route does.
  const ratios = results.openaiSession.map((r, i) => rate(r) / rate(results.native[i]));
  const ratio = median(ratios);
  const row = (label: string, rs: PhaseResult[]) => {
    const lat = rs.flatMap((r) => r.latenciesMs);
    return [
      label,
      `**${fmt(median(rs.map(rate)))}**`,
      `${fmt(Math.min(...rs.map(rate)))} – ${fmt(Math.max(...rs.map(rate)))}`,
      fmt(percentile(lat, 50), 1),
      fmt(percentile(lat, 99), 1),
      String(rs.reduce((n, r) => n + r.failures, 0)),
    ];
  };
  const gaps = long.gapsMs ?? [];
  const nativeGap = median(gaps[0] ?? []);
  // A speed-up is as good as parity: only a route slower than the native one by more than the goal fails.
  const gapVerdict = (g: number) => (g <= nativeGap * (1 + GOAL) ? 'PASS' : 'FAIL');
  const streamRows = targets.map((target, i) => {
    const g = gaps[i] ?? [];
    return [
      target.label,
      `**${fmt(median(g), 2)}**`,
      fmt(percentile(g, 99), 2),
      i === 0 ? '1.00x' : `${fmt(median(g) / nativeGap, 2)}x`,
      i === 0 ? '' : gapVerdict(median(g)),
    ];
  });
  const lines = [
    '## Front ends: the OpenAI API and the AI SDK stream against the native chat route (`npm run bench:front-ends`)',
    '',
    `Real sockets, one \`deck.app()\` on \`@hono/node-server\`, every event in the default SQLite store. JSON chat: ${CONNECTIONS}`,
    'keep-alive connections from a child process that also runs the model servers (one `scriptedModelServer` per',
    'connection, zero delay); a turn is one tool call plus a 20-token answer, on a fresh session per request (the',
    'native route; the OpenAI route with `session_id`), or stateless (the OpenAI route without one: nothing stored,',
    `the request's messages are the history). After a 3 s warm-up, ${ROUNDS} rounds of ${SECONDS} s per`,
    'route in alternating order; req/s is the median over rounds. Streams: a 1,000-token answer at zero delay from',
    `each route in turn, ${LONG_COUNT} each after 5 of warm-up; the gap is from the model server writing its last token to the`,
    "client reading the stream's last frame (`event: done` natively, `data: [DONE]` on the others).",
    '',
    `**Headline: \`POST /v1/chat/completions\` with a session serves ${fmt(100 * ratio)}% of the native chat route's requests/s: ${ratio >= 1 - GOAL ? 'PASS' : 'FAIL'}** (goal: within 10%; per round ${ratios.map((r) => `${fmt(100 * r)}%`).join(', ')}). Stateless, it serves ${fmt(100 * median(results.openai.map((r, i) => rate(r) / rate(results.native[i]))))}%.`,
    '',
    machineLine(load),
    '',
    ...table(
      ['JSON chat', 'req/s (median)', 'range', 'p50 ms', 'p99 ms', 'failed'],
      [
        row('native `POST /agents/{name}/chat`', results.native),
        row('OpenAI `POST /v1/chat/completions`, `session_id`', results.openaiSession),
        row('OpenAI `POST /v1/chat/completions`, stateless', results.openai),
      ],
    ),
    '',
    ...table(
      [
        'streamed 1,000-token answer',
        'last token to last byte, ms (median)',
        'p99 ms',
        'against native',
        'goal (within 10%)',
      ],
      streamRows,
    ),
    '',
    `Failed long answers: ${long.failures}. ${verdict(ratio) === 'PASS' ? '' : 'The JSON route misses its goal.'}`.trim(),
  ];
  writeSection('front-ends.bench', lines);
  console.log(lines.join('\n'));
}
