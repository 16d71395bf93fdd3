import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { emptyCheckpoint, INTERRUPT, RESUME, uuid6 } from '@langchain/langgraph-checkpoint';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../core/errors.js';
import { SLEEP_UNTIL_KEY } from '../../core/wakeups.js';
import { SqliteCheckpointer } from './checkpointer.js';
import { openDatabaseFile } from './database.js';
import { SqliteEventStore } from './events.js';

// The conformance suite calls describe/it/expect as globals, which this repo's vitest config
// does not define; so they are set before the suite is loaded.
Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { validate, deltaChannelHistoryTests } = await import(
  '@langchain/langgraph-checkpoint-validation'
);

const dir = mkdtempSync(join(tmpdir(), 'agentdeck-checkpointer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tempFile = () => join(dir, randomUUID(), 'state.db');

for (const [name, path] of [
  ['SqliteCheckpointer (memory)', () => ':memory:'],
  ['SqliteCheckpointer (file)', tempFile],
] as const) {
  const initializer = {
    checkpointerName: name,
    createCheckpointer: () => new SqliteCheckpointer(path()),
    destroyCheckpointer: (checkpointer: SqliteCheckpointer) => checkpointer.close(),
  };
  validate(initializer);
  deltaChannelHistoryTests(initializer); // opt-in in the suite: the base walk on our storage
}

const meta = { source: 'loop' as const, step: 0, parents: {} };
const sleep = (when: Date) => [
  { id: randomUUID(), value: { [SLEEP_UNTIL_KEY]: when.toISOString() } },
];
const now = new Date('2030-01-01T00:00:00.000Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe('SqliteCheckpointer wake-ups', () => {
  let saver: SqliteCheckpointer;
  beforeEach(() => {
    saver = new SqliteCheckpointer(tempFile());
  });
  afterEach(() => saver.close());

  /** A checkpoint of `threadId` (a child of `parent` when given); returns its config. */
  const checkpoint = (threadId: string, parent?: string, ns = '') =>
    saver.put(
      { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: parent } },
      { ...emptyCheckpoint(), id: uuid6(-1) },
      meta,
      {},
    );
  const due = async (prefix?: string) =>
    (await saver.dueWakeups(now, prefix === undefined ? {} : { threadIdPrefix: prefix })).map(
      (w) => w.threadId,
    );

  it('indexes 10,000 sleeping threads and finds the due ones by prefix, earliest first', async () => {
    const prefixes = ['a%_:', 'ab_:', 'a_c:', 'zz:'];
    const threads = Array.from({ length: 10_000 }, (_, i) => ({
      id: `${prefixes[i % 4]}${i}`,
      wake: i < 5_000 ? minutes(-1 - i) : minutes(1 + i),
    }));
    for (const { id, wake } of threads) {
      await saver.putWrites(await checkpoint(id), [[INTERRUPT, sleep(wake)]], 'task');
    }
    const all = await saver.dueWakeups(now);
    expect(all).toHaveLength(5_000);
    const times = all.map((w) => Date.parse(w.wakeAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(all[0]).toEqual({ threadId: threads[4_999]?.id, wakeAt: minutes(-5_000).toISOString() });
    for (const prefix of ['', 'a', 'a%', 'a%_:', 'a_', 'ab_:', 'a_c:', '%', '_', 'zz:', 'a%_:1']) {
      const expected = threads
        .filter((t) => t.wake <= now && t.id.startsWith(prefix))
        .map((t) => t.id);
      expect((await due(prefix)).sort()).toEqual(expected.sort());
    }
  });

  it('forgets a wake-up when the thread moves on to a new checkpoint', async () => {
    const first = await checkpoint('t1');
    const id = String(first.configurable?.checkpoint_id);
    await saver.putWrites(first, [[INTERRUPT, sleep(minutes(-1))]], 'task');
    await saver.put(first, { ...emptyCheckpoint(), id }, meta, {}); // the same one, again
    expect(await due()).toEqual(['t1']);
    await checkpoint('t1', id);
    expect(await due()).toEqual([]);
  });

  it('forgets the wake-ups of a deleted thread: no longer due, nor the next one', async () => {
    await saver.putWrites(await checkpoint('t1'), [[INTERRUPT, sleep(minutes(-2))]], 'task');
    await saver.putWrites(await checkpoint('t2'), [[INTERRUPT, sleep(minutes(-1))]], 'task');
    await saver.putWrites(await checkpoint('t3'), [[INTERRUPT, sleep(minutes(5))]], 'task');
    expect(await saver.nextWakeup()).toBe(minutes(-2).toISOString());
    await saver.deleteThread('t1');
    expect(await due()).toEqual(['t2']);
    expect(await saver.nextWakeup()).toBe(minutes(-1).toISOString());
    await saver.deleteThread('t2');
    expect(await due()).toEqual([]);
    expect(await saver.nextWakeup()).toBe(minutes(5).toISOString());
  });

  it('tracks each task: a question, a finished task and a bad time clear its timer', async () => {
    const config = await checkpoint('t1');
    await saver.putWrites(config, [[INTERRUPT, [{ id: 'q', value: { ask: 'ok?' } }]]], 'ask');
    await saver.putWrites(config, [[INTERRUPT, sleep(minutes(-1))]], 'sleeper');
    await saver.putWrites(config, [[RESUME, 'woke']], 'sleeper');
    expect(await due()).toEqual(['t1']); // resuming alone keeps it: the run may still crash
    await saver.putWrites(config, [['out', 1]], 'sleeper');
    expect(await due()).toEqual([]);
    await saver.putWrites(config, [[INTERRUPT, sleep(minutes(-1))]], 'ask');
    await saver.putWrites(config, [[INTERRUPT, [{ id: 'q', value: { ask: 'now?' } }]]], 'ask');
    await saver.putWrites(
      config,
      [[INTERRUPT, [{ id: 'x', value: { [SLEEP_UNTIL_KEY]: 'soon' } }]]],
      'x',
    );
    expect(await due()).toEqual([]);
  });

  it('reports a thread once, at its earliest due timer, and ignores subgraph namespaces', async () => {
    const config = await checkpoint('t1');
    await saver.putWrites(config, [[INTERRUPT, sleep(minutes(-1))]], 'a');
    await saver.putWrites(
      config,
      [[INTERRUPT, [...sleep(minutes(-3)), ...sleep(minutes(5))]]],
      'b',
    );
    const sub = await checkpoint('t2', undefined, 'child:1');
    await saver.putWrites(sub, [[INTERRUPT, sleep(minutes(-1))]], 'a');
    expect(await saver.dueWakeups(now)).toEqual([
      { threadId: 't1', wakeAt: minutes(-3).toISOString() },
    ]);
  });
});

describe('SqliteCheckpointer', () => {
  it('runs a LangGraph graph that sleeps, is found due, resumes and finishes', async () => {
    const saver = new SqliteCheckpointer(':memory:');
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode('nap', () => ({
        log: [String(interrupt({ [SLEEP_UNTIL_KEY]: minutes(-1).toISOString() }))],
      }))
      .addEdge(START, 'nap')
      .addEdge('nap', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 'wf:1' } };
    await graph.invoke({ log: ['start'] }, config);
    expect(await saver.dueWakeups(now, { threadIdPrefix: 'wf:' })).toEqual([
      { threadId: 'wf:1', wakeAt: minutes(-1).toISOString() },
    ]);
    const done = await graph.invoke(new Command({ resume: 'woke' }), config);
    expect(done.log).toEqual(['start', 'woke']);
    expect(await saver.dueWakeups(now)).toEqual([]);
    await saver.close();
  });

  it('gives a fork its own channel values (versions are unique per step)', async () => {
    const saver = new SqliteCheckpointer(':memory:');
    const State = Annotation.Root({ n: Annotation<number> });
    const graph = new StateGraph(State)
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .addEdge('inc', END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: 't' } };
    await graph.invoke({ n: 1 }, config);
    const history = await collect(graph.getStateHistory(config));
    const input = history.find((state) => state.metadata?.step === 0);
    expect(input?.values).toEqual({ n: 1 });
    const forked = await graph.updateState(input?.config ?? config, { n: 10 });
    expect(await graph.invoke(null, forked)).toEqual({ n: 11 });
    const branches = await collect(graph.getStateHistory(config));
    expect(branches.map((state) => state.values.n)).toContain(2); // the first run is intact
    await saver.close();
  });

  it('shares the event store file and flushes its open group commit before writing', async () => {
    const path = tempFile();
    const store = new SqliteEventStore({ path });
    const saver = new SqliteCheckpointer(path, { busyTimeoutMs: 50 });
    const envelope = { runId: 'r1', sessionId: null, namespace: null, origin: 'test' };
    await store.append([
      { ...envelope, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
    ]);
    const delta = (text: string) => ({
      ...envelope,
      kind: 'text.delta' as const,
      payload: { messageId: 'm', text },
    });
    await store.append([delta('a')]);
    await store.append([delta('b')]); // the second delta of the turn opens a group commit
    await saver.put(
      { configurable: { thread_id: 't1' } },
      { ...emptyCheckpoint(), id: uuid6(-1) },
      meta,
      {},
    );
    expect(await saver.getTuple({ configurable: { thread_id: 't1' } })).toBeDefined();
    expect((await store.read('r1')).map((e) => e.seq)).toEqual([0, 1, 2]);
    await Promise.all([store.close(), saver.close()]);
    const db = new DatabaseSync(path);
    const components = db
      .prepare('SELECT DISTINCT component FROM schema_migrations ORDER BY 1')
      .all();
    db.close();
    expect(components.map((row) => row.component)).toEqual(['checkpoints', 'events']);
  });

  it("on the event store's connection, writes a checkpoint in its group: committed with the run's end", async () => {
    const path = tempFile();
    const store = new SqliteEventStore({ path });
    const shared = store.connection as DatabaseSync;
    const saver = new SqliteCheckpointer(path, { database: shared });
    const other = new DatabaseSync(path); // another process's view of the file
    const stored = () => other.prepare('SELECT count(*) AS n FROM lg_checkpoints').get()?.n;
    const envelope = { runId: 'r1', sessionId: null, namespace: null, origin: 'test' };
    await store.append([
      { ...envelope, kind: 'run.started', payload: { invocableType: 'workflow', input: [] } },
    ]);
    const config = await saver.put(
      { configurable: { thread_id: 't1' } },
      { ...emptyCheckpoint(), id: uuid6(-1) },
      meta,
      {},
    );
    expect(shared.isTransaction, 'the put opened a group, not a commit of its own').toBe(true);
    expect(await saver.getTuple(config), 'this connection reads its own group').toBeDefined();
    expect(stored()).toBe(0);
    const ended = await store.append([
      { ...envelope, kind: 'run.completed', payload: { output: [], usage: null } },
    ]);
    expect(ended).toHaveLength(1);
    expect(stored(), 'durable once the run end resolves').toBe(1);
    other.close();
    await Promise.all([store.close(), saver.close()]);
  });

  it('gives the pages of a deleted thread back to the file system', async () => {
    const path = tempFile();
    const db = openDatabaseFile(path, 5_000);
    const saver = new SqliteCheckpointer(path, { database: db });
    const pragma = (name: string) => Number(db.prepare(`PRAGMA ${name}`).get()?.[name]);
    const pages = () => {
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return { pages: pragma('page_count'), free: pragma('freelist_count') };
    };
    const empty = pages();
    let config: RunnableConfig = { configurable: { thread_id: 'big', checkpoint_ns: '' } };
    for (let step = 1; step <= 40; step += 1) {
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { text: `${step}`.repeat(50_000) },
        channel_versions: { text: step },
      };
      config = await saver.put(config, checkpoint, meta, { text: step });
    }
    const full = pages();
    expect(full.pages).toBeGreaterThan(empty.pages + 400); // 40 values of 50 KB or more
    await saver.deleteThread('big');
    const after = pages();
    expect(after.free).toBe(0);
    expect(after.pages).toBeLessThan(empty.pages + 20);
    expect(statSync(path).size).toBe(after.pages * 4096);
    await saver.close();
    db.close();
  });

  it('rejects calls after close with a StoreError, and closes twice', async () => {
    const saver = new SqliteCheckpointer(':memory:');
    await saver.close();
    await saver.close();
    const config = { configurable: { thread_id: 't1' } };
    await expect(saver.getTuple(config)).rejects.toThrow(StoreError);
    await expect(saver.put(config, emptyCheckpoint(), meta, {})).rejects.toThrow(/closed/);
    await expect(saver.list(config).next()).rejects.toThrow(/closed/);
    await expect(saver.dueWakeups(now)).rejects.toThrow(StoreError);
  });

  it('raises a StoreError when the file cannot be opened', () => {
    expect(() => new SqliteCheckpointer(join(dir, 'missing', '\0', 'x.db'))).toThrow(StoreError);
  });
});
