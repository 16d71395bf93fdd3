/**
 * Stalled SSE clients through a real `service-serve` process (issue 29): CLIENTS clients
 * open a streamed chat whose scripted answer is ANSWER_BYTES long and never read it. The
 * runs must play at the model's pace and complete, the server's resident memory must stay
 * within RSS_BOUND_MB, and each stream, read late, must hold the whole answer (or end with
 * the resume frame, the rest then read from `GET /runs/{id}/events`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'examples/project/.agentdeck');
const CLIENTS = 20;
const ANSWER_BYTES = 5 * 1024 * 1024;
/**
 * Resident memory the server may reach while 100 MB of answers go unread. Most of it is the
 * turns' own: 20 turns of 5 MB at once each hold their answer several times (the engine's
 * text, the session items, the `run.completed` output and its `done` frame), so the peak
 * varies with how many play at once (690-1,083 MB measured; 880 MB with 20 clients that read
 * normally). Each stalled stream adds at most its queue (1,024 frames or 256 KiB) and one
 * page of 32 events read back from the log, whatever it has not read. Before streams were
 * buffered, this case reached 1,066 MB with 17 of the 20 runs still running after 90 s, held
 * back by their clients.
 */
const RSS_BOUND_MB = 1_500;

const servers: ServerProcess[] = [];
let model: ScriptedModelServer | undefined;
const dirs: string[] = [];

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One answer, different per client, so a stream mixed with another's shows. */
function answerOf(client: number): string {
  const line = `client ${String(client).padStart(2, '0')} says the quick brown fox jumps.\n`;
  return line.repeat(Math.ceil(ANSWER_BYTES / line.length)).slice(0, ANSWER_BYTES);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** Open a streamed chat and stop reading at once (the response stays paused). */
function openStalled(url: string, session: string): Promise<IncomingMessage> {
  return new Promise((done, fail) => {
    const req = request(
      `${url}/agents/concierge/chat?stream=true`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.pause();
        done(res);
      },
    );
    req.on('error', fail);
    req.end(JSON.stringify({ session_id: session, message: 'Write it all.' }));
  });
}

/** Read the rest of a paused response: the deltas joined and the frames that are not deltas. */
async function readAll(res: IncomingMessage): Promise<{ text: string; ends: string[] }> {
  const parts: string[] = [];
  const ends: string[] = [];
  let pending = '';
  res.setEncoding('utf8');
  for await (const chunk of res) {
    pending += chunk as string;
    let cut = pending.indexOf('\n\n');
    while (cut >= 0) {
      const frame = pending.slice(0, cut);
      pending = pending.slice(cut + 2);
      if (frame.startsWith('data: {"delta": ')) {
        parts.push(JSON.parse(frame.slice(6)).delta as string);
      } else ends.push(frame);
      cut = pending.indexOf('\n\n');
    }
  }
  expect(pending).toBe('');
  return { text: parts.join(''), ends };
}

it(`${CLIENTS} clients that never read do not hold their runs back nor grow the server's memory`, {
  timeout: 180_000,
}, async () => {
  model = await scriptedModelServer(
    Array.from({ length: CLIENTS }, (_, i) => ({ text: answerOf(i), chunkSize: 16 * 1024 })),
  );
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-stalled-'));
  dirs.push(dir);
  const server = startServer(PROJECT, { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-x' }, dir);
  servers.push(server);
  const url = await server.url;
  const pid = server.child.pid ?? 0;

  // One at a time, so client i gets scripted answer i.
  const streams: IncomingMessage[] = [];
  for (let i = 0; i < CLIENTS; i++) streams.push(await openStalled(url, `stalled-${i}`));
  const runIds = streams.map((res) => String(res.headers['x-run-id']));

  let peak = rssMb(pid);
  const started = Date.now();
  const pending = new Set(runIds);
  while (pending.size > 0 && Date.now() - started < 90_000) {
    for (const runId of [...pending]) {
      const run = (await (await fetch(`${url}/runs/${runId}`)).json()) as { status: string };
      if (run.status !== 'running') {
        expect(run.status).toBe('completed');
        pending.delete(runId);
      }
    }
    peak = Math.max(peak, rssMb(pid));
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `[stalled-clients] ${CLIENTS} x ${ANSWER_BYTES / 1024 / 1024} MB unread: all ended after ${seconds.toFixed(1)} s, peak server RSS ${peak.toFixed(0)} MB`,
  );
  expect([...pending], 'runs still running after 90 s').toEqual([]);
  expect(peak).toBeLessThan(RSS_BOUND_MB);

  // Read late, every stream holds its whole answer, then `event: done`. Which scripted answer
  // a run gets is the order its model request reached the server (runs started one at a time
  // may still ask in another order on a loaded machine): each stream must be one whole answer,
  // unmixed and in order, and no answer may go to two streams.
  const answers = Array.from({ length: CLIENTS }, (_, k) => answerOf(k));
  const given = new Set<number>();
  for (const [i, res] of streams.entries()) {
    const { text, ends } = await readAll(res);
    if (ends.at(-1)?.startsWith('event: behind')) {
      throw new Error(`stream ${i} closed behind: ${ends.at(-1)}`);
    }
    expect(text.length, `stream ${i}`).toBe(ANSWER_BYTES);
    const k = answers.indexOf(text);
    expect(k, `stream ${i} is one client's whole answer, in order`).toBeGreaterThanOrEqual(0);
    given.add(k);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatch(/^event: done\ndata: \{"output": "client/);
    expect(ends[0]).toContain(`"output": "client ${String(k).padStart(2, '0')} says`);
  }
  expect(given.size, 'every answer went to exactly one stream').toBe(CLIENTS);
  model.assertConsumed();
});
