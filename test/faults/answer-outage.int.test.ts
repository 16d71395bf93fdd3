/**
 * Fault injection: answers in flight when Postgres fails them. A deck keeps its events, claims
 * and checkpoints in a Postgres cluster of this test's own; the test locks a table so that
 * the answer's statement waits on it, then terminates the backend running it
 * (`pg_terminate_backend`, as a restart or a failover would), and every other statement that
 * queues behind the lock, until the client has its response. For each disruption: an answer
 * the client was told succeeded took effect, and one it was told to retry (503) can be
 * retried, at once, to success; an answer that took effect is never reported as refused, and
 * its retry (same `Idempotency-Key`, or same value) gets its outcome.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Deck, interrupt, Workflow } from '../../src/index.js';
import { PostgresEventStore } from '../../src/stores/postgres/events.js';
import {
  type OwnPostgres,
  ownPostgresUnavailableReason,
  startOwnPostgres,
} from '../support/own-postgres.js';

const skipReason = ownPostgresUnavailableReason();

const Expense = z.object({
  amount: z.number(),
  approved: z.boolean().optional(),
  note: z.string().optional(),
});
type Expense = z.infer<typeof Expense>;

/** Where the `finish` node waits, when a test holds it there. */
let held: { reached: () => void; go: Promise<void> } | null = null;

const expenses = new Workflow({
  name: 'expenses',
  state: Expense,
  durable: true,
  graph: (state) =>
    new StateGraph(state)
      .addNode('ask', (s: Expense) => {
        const answer = interrupt<{ approved: boolean }>({ question: 'approve?', amount: s.amount });
        return { approved: answer.approved };
      })
      .addNode('finish', async (s: Expense) => {
        const hold = held;
        if (hold) {
          hold.reached();
          await hold.go;
        }
        return { note: `amount ${s.amount} ${s.approved ? 'approved' : 'rejected'}` };
      })
      .addEdge(START, 'ask')
      .addEdge('ask', 'finish')
      .addEdge('finish', END),
});

let postgres: OwnPostgres;
let deck: Deck;
let app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

beforeAll(async () => {
  if (skipReason) return;
  postgres = await startOwnPostgres();
  deck = await new Deck({
    eventStore: new PostgresEventStore({ url: postgres.url }),
    checkpoints: postgres.url,
    workflows: [expenses],
  }).open();
  app = deck.app();
}, 60_000);

afterAll(async () => {
  await deck?.close();
  await postgres?.destroy();
}, 30_000);

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Start a run on `thread`: it waits for its answer; its run id. */
async function waitingRun(thread: string): Promise<string> {
  const response = await post(`/workflows/expenses?thread_id=${thread}`, { amount: 7 });
  expect(response.status).toBe(200);
  return response.headers.get('x-run-id') as string;
}

/** A connection of its own that holds table locks in one transaction. */
async function locker() {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
  await client.query('BEGIN');
  return {
    pid,
    lock: (table: string, mode: string) => client.query(`LOCK TABLE ${table} IN ${mode} MODE`),
    async end() {
      await client.query('ROLLBACK');
      await client.end();
    },
    /**
     * Backends waiting for a lock this one holds, with their statements: not one still shown
     * waiting on a lock another holder has just released (a loaded machine wakes it late).
     */
    async waiting(): Promise<{ pid: number; query: string }[]> {
      const { rows } = await client.query<{ pid: number; query: string }>(
        `SELECT pid, query FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()
            AND pg_backend_pid() = ANY (pg_blocking_pids(pid))`,
      );
      return rows;
    },
    activity: async () =>
      (
        await client.query(
          'SELECT pid, state, wait_event_type, wait_event, query FROM pg_stat_activity',
        )
      ).rows,
    terminate: (pids: number[]) =>
      client.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]),
  };
}

type Locker = Awaited<ReturnType<typeof locker>>;

/** Poll (bounded) until a backend waits on a lock and `also()` holds. */
async function untilWaiting(holder: Locker, also = async () => true): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await holder.waiting()).length > 0 && (await also())) return;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`no backend waited on a lock: ${JSON.stringify(await holder.activity())}`);
}

/** Terminate every backend that waits on a lock until `response` settles (bounded). */
async function terminateUntil(holder: Locker, response: Promise<Response>): Promise<void> {
  let settled = false;
  const done = () => {
    settled = true;
  };
  response.then(done, done);
  for (let i = 0; i < 200 && !settled; i++) {
    const pids = (await holder.waiting()).map((row) => row.pid);
    if (pids.length > 0) await holder.terminate(pids);
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

/** Send `send()` until it is neither 409 nor 503 (bounded, no backoff beyond 50 ms); the last. */
async function retried(send: () => Promise<Response>): Promise<Response> {
  let response = await send();
  for (let i = 0; i < 60 && (response.status === 409 || response.status === 503); i++) {
    await new Promise((done) => setTimeout(done, 50));
    response = await send();
  }
  return response;
}

describe.skipIf(skipReason !== null)(`answers while Postgres fails ${skipReason ?? ''}`, () => {
  it('an answer refused for an outage leaves the run waiting, and its retry plays it', async () => {
    const runId = await waitingRun('refused');
    const holder = await locker();
    let answering = Promise.resolve(new Response('not sent', { status: 599 }));
    try {
      // The checkpoint read of the answered thread waits on the lock, and is cut off.
      await holder.lock('checkpoints', 'ACCESS EXCLUSIVE');
      answering = post(`/runs/${runId}/answer`, { value: { approved: true } });
      // The answer has recorded run.resumed and waits on the checkpoint lock.
      await untilWaiting(holder, async () => (await deck.status(runId)) === 'running');
      // Whatever the answer writes to the claims (its resume lock) fails from now on too.
      await holder.lock('claims', 'EXCLUSIVE');
      await terminateUntil(holder, answering);
    } finally {
      await holder.end();
    }
    const refused = await answering;
    expect(refused.status, await refused.clone().text()).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);

    // Told to retry: the run still waits, is listed, and the retry plays the answer.
    expect(await deck.status(runId)).toBe('waiting_human');
    const pending = (await (await app.request('/pending')).json()) as { items: unknown[] };
    expect(pending.items).toMatchObject([{ run_id: runId, payload: { amount: 7 } }]);
    const retry = await retried(() => post(`/runs/${runId}/answer`, { value: { approved: true } }));
    expect(retry.status, await retry.clone().text()).toBe(200);
    expect(await retry.json()).toMatchObject({
      status: 'completed',
      result: { approved: true, note: 'amount 7 approved' },
    });
    expect(await deck.status(runId)).toBe('completed');
    // Sent once more (its response lost, say): the same value replays the outcome.
    const replayed = await post(`/runs/${runId}/answer`, { value: { approved: true } });
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({
      status: 'completed',
      result: { approved: true },
    });
    expect((await post(`/runs/${runId}/answer`, { value: { approved: false } })).status).toBe(409);
  }, 30_000);

  it("an answer whose graph's final checkpoint write is cut off leaves the run waiting", async () => {
    const runId = await waitingRun('unwritten');
    const holder = await locker();
    let answering = Promise.resolve(new Response('not sent', { status: 599 }));
    try {
      // The graph reads its checkpoint and plays; its one write, at its end, waits and is cut off.
      await holder.lock('checkpoints', 'EXCLUSIVE');
      answering = post(`/runs/${runId}/answer`, { value: { approved: true } });
      await untilWaiting(holder, async () => (await deck.status(runId)) === 'running');
      await terminateUntil(holder, answering);
    } finally {
      await holder.end();
    }
    const refused = await answering;
    expect(refused.status, await refused.clone().text()).toBe(503);
    expect(await deck.status(runId)).toBe('waiting_human');
    const retry = await retried(() => post(`/runs/${runId}/answer`, { value: { approved: true } }));
    expect(retry.status, await retry.clone().text()).toBe(200);
    expect(await retry.json()).toMatchObject({ status: 'completed', result: { approved: true } });
  }, 30_000);

  it('an answer that took effect is not refused, and its retry gets its outcome', async () => {
    const runId = await waitingRun('applied');
    let reached = () => {};
    let go = () => {};
    const atFinish = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const released = new Promise<void>((resolve) => {
      go = resolve;
    });
    held = { reached, go: released };
    const key = { 'idempotency-key': 'expense-applied-1' };
    const checkpoints = await locker();
    const events = await locker();
    let answering = Promise.resolve(new Response('not sent', { status: 599 }));
    try {
      answering = post('/workflows/expenses/applied/resume', { value: { approved: true } }, key);
      await atFinish;
      // The graph's final checkpoint waits; then the run's ending waits, and is cut off.
      await checkpoints.lock('checkpoints', 'EXCLUSIVE');
      go();
      await untilWaiting(checkpoints);
      await events.lock('events', 'EXCLUSIVE');
      await checkpoints.end();
      await terminateUntil(events, answering);
    } finally {
      held = null;
      go();
      await checkpoints.end().catch(() => {});
      await events.end();
    }
    const first = await answering;
    const done = { approved: true, note: 'amount 7 approved' };
    // The answer took effect (the thread's checkpoint has it): told so, though its ending waits.
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await first.json()).toMatchObject(done);

    const again = await retried(() =>
      post('/workflows/expenses/applied/resume', { value: { approved: true } }, key),
    );
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await again.json()).toMatchObject(done);
    expect(again.headers.get('x-run-id')).toBe(runId);
    // The same key on the run's own route: the same outcome, not a 409.
    const byRun = await post(`/runs/${runId}/answer`, { value: { approved: true } }, key);
    expect(byRun.status, await byRun.clone().text()).toBe(200);
    expect(await byRun.json()).toMatchObject({ status: 'completed', result: done });
    // Without the key, the thread is not paused (1.2.1: 404), and another answer is refused.
    expect((await post('/workflows/expenses/applied/resume', { value: {} })).status).toBe(404);
    expect((await post(`/runs/${runId}/answer`, { value: { approved: false } })).status).toBe(409);
    expect(await deck.status(runId)).toBe('completed');
  }, 30_000);
});
