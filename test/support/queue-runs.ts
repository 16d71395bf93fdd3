/**
 * For the queue's process tests (#40): queue background runs over HTTP (`POST /runs`), wait
 * for them to settle, and read their events through our own store to judge what the workers
 * did: each run ended once and started once, how many runs of a key played at once, the
 * order runs started in, and what the fixture's tools and nodes noted (fixtures/queue).
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Event } from '../../src/core/events.js';
import { isTerminal } from '../../src/core/events.js';
import type { EventStore } from '../../src/core/store.js';
import { openEventStore } from '../../src/stores/events-url.js';

export interface Queued {
  runId: string;
  /** The agent or workflow. */
  name: string;
  key: string;
  server: string;
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** `POST /runs` on `server`; the answer's status and body. */
export async function postRun(
  server: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown>; location: string | null }> {
  const response = await fetch(`${server}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    location: response.headers.get('location'),
  };
}

/** Queue a run (it must be taken: 202); what a test follows it by. */
export async function enqueue(server: string, body: Record<string, unknown>): Promise<Queued> {
  const answer = await postRun(server, body);
  if (answer.status !== 202) {
    throw new Error(
      `POST ${server}/runs answered ${answer.status}: ${JSON.stringify(answer.body)}`,
    );
  }
  return {
    runId: String(answer.body.run_id),
    name: String(body.agent ?? body.workflow),
    key: String(answer.body.key),
    server,
  };
}

/** `items` mapped through `fn` with at most `width` at once, in order. */
export async function inParallel<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return out;
}

/** The event store at `url`, for the test's own reads (close it after). */
export function openStore(url: string): EventStore {
  return openEventStore(url);
}

const SETTLED = new Set(['completed', 'failed', 'cancelled', 'waiting_human']);

/**
 * Wait until every run of `runIds` has ended or waits for a person (no run `queued`,
 * `running` or `pending`), reading the store every 100 ms, for at most `ms`. The ones
 * not settled by then (empty when all are).
 */
export async function untilSettled(
  store: EventStore,
  runIds: readonly string[],
  ms: number,
): Promise<string[]> {
  const deadline = Date.now() + ms;
  let open = [...runIds];
  while (open.length > 0 && Date.now() < deadline) {
    const statuses = await inParallel(open, 8, async (id) => (await store.getRun(id))?.status);
    open = open.filter((_, i) => !SETTLED.has(String(statuses[i])));
    if (open.length > 0) await sleep(100);
  }
  return open;
}

/** Every run's events, by run id. */
export async function eventsOf(
  store: EventStore,
  runIds: readonly string[],
): Promise<Map<string, Event[]>> {
  const all = await inParallel(runIds, 8, (id) => store.read(id));
  return new Map(runIds.map((id, i) => [id, all[i] as Event[]]));
}

export interface PlayedOnce {
  /** Runs without exactly one terminal event (waiting ones aside), with their count. */
  notEndedOnce: { runId: string; terminals: number; kinds: string[] }[];
  /** Runs without exactly one `run.started`, with their count. */
  notStartedOnce: { runId: string; started: number }[];
  /** Runs waiting for a person (`run.interrupted` last). */
  waiting: number;
}

/**
 * Each run started once (`run.started`) and ended once (one terminal event), or started once
 * and waits for a person (its last event `run.interrupted`, no terminal event).
 */
export function playedOnce(events: ReadonlyMap<string, readonly Event[]>): PlayedOnce {
  const report: PlayedOnce = { notEndedOnce: [], notStartedOnce: [], waiting: 0 };
  for (const [runId, list] of events) {
    const started = list.filter((event) => event.kind === 'run.started').length;
    if (started !== 1) report.notStartedOnce.push({ runId, started });
    const terminals = list.filter(isTerminal).length;
    if (terminals === 0 && list.at(-1)?.kind === 'run.interrupted') report.waiting += 1;
    else if (terminals !== 1) {
      report.notEndedOnce.push({ runId, terminals, kinds: list.map((event) => event.kind) });
    }
  }
  return report;
}

/** When a run began playing (its `run.started`), ms since the epoch. */
export function startedAt(list: readonly Event[]): number {
  const started = list.find((event) => event.kind === 'run.started');
  if (!started) throw new Error(`no run.started in ${list.map((event) => event.kind)}`);
  return Date.parse(started.ts);
}

/** When a run stopped playing (its terminal event, else its last), ms since the epoch. */
export function endedAt(list: readonly Event[]): number {
  const last = list.find(isTerminal) ?? list.at(-1);
  return Date.parse(last?.ts ?? '');
}

/**
 * Most intervals `[start, end)` open at once: an interval that ends at the instant another
 * starts does not overlap it (a worker frees a slot after the run's last event is written).
 */
export function mostAtOnce(intervals: readonly { start: number; end: number }[]): number {
  const edges = intervals.flatMap(({ start, end }) => [
    { at: start, step: 1 },
    { at: end, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step); // ends before starts at one instant
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.step;
    most = Math.max(most, open);
  }
  return most;
}

export interface Noted {
  what: string;
  id: string;
  pid: number;
  at: number;
}

/** The lines the fixture noted in `file` (fixtures/queue/queue-log.ts). */
export function notedLines(file: string): Noted[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [what = '', id = '', pid = '0', at = '0'] = line.split(' ');
      return { what, id, pid: Number(pid), at: Number(at) };
    });
}

/**
 * The token bucket's bound (`limit` at once, refilled at `limit / periodMs`): the most starts
 * that fit in a window of `spanMs`, give or take `jitterMs` (a run's `run.started` is written
 * a moment after its worker took its token, a moment that varies with the machine's load).
 */
export function bucketAllows(limit: number, periodMs: number, spanMs: number, jitterMs: number) {
  return Math.floor(limit + ((spanMs + jitterMs) * limit) / periodMs);
}

/** The largest excess of starts over the bucket's bound in any window between two starts. */
export function worstWindow(
  starts: readonly number[],
  limit: number,
  periodMs: number,
  jitterMs: number,
): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let worst = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < sorted.length; i += 1) {
    for (let j = i; j < sorted.length; j += 1) {
      const span = (sorted[j] as number) - (sorted[i] as number);
      worst = Math.max(worst, j - i + 1 - bucketAllows(limit, periodMs, span, jitterMs));
    }
  }
  return worst;
}
