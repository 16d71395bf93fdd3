/**
 * The client side of bench/queue.bench.ts: queueing runs (`POST /runs`) and starting them
 * synchronously (`POST /workflows/{name}`) against `service-serve` processes, and reading back
 * the store-assigned times of each run's `run.queued`, `run.started` and `run.completed` from
 * the event store itself (Postgres through `pg`, SQLite through `node:sqlite`, read-only).
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';

export const WORKFLOW = 'tick';

/** The store-assigned times of one run, in ms since the epoch (NaN when not there yet). */
export interface RunTimes {
  queued: number;
  started: number;
  completed: number;
}

/** Reads runs' times from the event store the servers share. */
export interface StoreReader {
  /** How many of `ids` have ended (completed, failed or cancelled). */
  ended(ids: readonly string[]): Promise<number>;
  times(ids: readonly string[]): Promise<Map<string, RunTimes>>;
  close(): Promise<void>;
}

const ENDED = ['completed', 'failed', 'cancelled'];
const KINDS = ['run.queued', 'run.started', 'run.completed'];

export async function postgresReader(url: string): Promise<StoreReader> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async ended(ids) {
      const { rows } = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM runs WHERE run_id = ANY($1) AND status = ANY($2)',
        [ids, ENDED],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async times(ids) {
      const { rows } = await client.query<{ run_id: string; kind: string; ts: string }>(
        'SELECT run_id, kind, ts FROM events WHERE run_id = ANY($1) AND kind = ANY($2)',
        [ids, KINDS],
      );
      return collect(rows);
    },
    close: () => client.end(),
  };
}

export function sqliteReader(path: string): StoreReader {
  const db = new DatabaseSync(path, { readOnly: true });
  db.exec('PRAGMA busy_timeout = 5000');
  const list = (ids: readonly string[]) => JSON.stringify(ids);
  const ended = db.prepare(
    `SELECT count(*) AS n FROM runs WHERE run_id IN (SELECT value FROM json_each(?))
       AND status IN ('completed', 'failed', 'cancelled')`,
  );
  const times = db.prepare(
    `SELECT run_id, kind, ts FROM events WHERE run_id IN (SELECT value FROM json_each(?))
       AND kind IN ('run.queued', 'run.started', 'run.completed')`,
  );
  return {
    ended: async (ids) => Number((ended.get(list(ids)) as { n: number }).n),
    times: async (ids) =>
      collect(times.all(list(ids)) as unknown as { run_id: string; kind: string; ts: number }[]),
    close: async () => db.close(),
  };
}

/** Postgres keeps `ts` as ISO 8601 text, SQLite as ms since the epoch. */
function collect(rows: { run_id: string; kind: string; ts: string | number }[]) {
  const out = new Map<string, RunTimes>();
  for (const row of rows) {
    const t = out.get(row.run_id) ?? { queued: Number.NaN, started: Number.NaN, completed: NaN };
    const at = typeof row.ts === 'number' ? row.ts : Date.parse(row.ts);
    if (row.kind === 'run.queued') t.queued = at;
    else if (row.kind === 'run.started') t.started = at;
    else t.completed = at;
    out.set(row.run_id, t);
  }
  return out;
}

/** Wait until every one of `ids` has ended, looking every `everyMs`; throws after `timeoutMs`. */
export async function waitEnded(
  reader: StoreReader,
  ids: readonly string[],
  timeoutMs: number,
  everyMs = 10,
): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if ((await reader.ended(ids)) >= ids.length) return;
    await sleep(everyMs);
  }
  throw new Error(`${ids.length} runs did not all end within ${timeoutMs} ms`);
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Queue one run of the bench workflow on `base`; its run id. */
export async function enqueueRun(base: string, n: number): Promise<string> {
  const response = await fetch(`${base}/runs`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ workflow: WORKFLOW, input: { n } }),
  });
  const body = (await response.json()) as { run_id?: string };
  if (response.status !== 202 || !body.run_id) {
    throw new Error(`POST /runs answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.run_id;
}

/** Start one run of the bench workflow synchronously on `base` and wait for its final state. */
export async function runSync(base: string, n: number): Promise<void> {
  const response = await fetch(`${base}/workflows/${WORKFLOW}`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ input: { n } }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`POST /workflows answered ${response.status}`);
}

/**
 * `runs` requests from `clients` concurrent clients, client `i` on `bases[i % bases.length]`,
 * each sending its next request when its last is answered. Returns what each call returned.
 */
export async function closedLoop<T>(
  bases: readonly string[],
  clients: number,
  runs: number,
  call: (base: string, n: number) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const base = bases[i % bases.length] as string;
      while (next < runs) {
        const n = next++;
        out.push(await call(base, n));
      }
    }),
  );
  return out;
}

/**
 * An open-loop stream: `count` enqueues at `perSecond`, spread round-robin over `bases`, each
 * sent on its schedule whether or not the ones before it were answered (at most 256 in flight).
 */
export async function steadyStream(
  bases: readonly string[],
  perSecond: number,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  const inFlight = new Set<Promise<void>>();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const due = t0 + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= 256) await Promise.race(inFlight);
    const sent: Promise<void> = enqueueRun(bases[i % bases.length] as string, i)
      .then((id) => {
        ids.push(id);
      })
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }
  await Promise.all(inFlight);
  return ids;
}
