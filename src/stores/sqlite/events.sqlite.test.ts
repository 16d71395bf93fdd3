import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../core/errors.js';
import type { NewEvent } from '../../core/events.js';
import type { EventStore } from '../../core/store.js';
import { SqliteEventStore } from './events.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const dirs: string[] = [];
const stores: EventStore[] = [];

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-sqlite-'));
  dirs.push(dir);
  return join(dir, 'nested', 'state.db');
}

/** A store on `path`, with the default `groupCommit` unless one is given. */
function open(path: string, groupCommit?: boolean): SqliteEventStore {
  const store = new SqliteEventStore(groupCommit === undefined ? { path } : { path, groupCommit });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const envelope = { runId: 'run-1', sessionId: null, namespace: null, origin: 'test' };
const started: NewEvent = {
  ...envelope,
  kind: 'run.started',
  payload: { invocableType: 'agent', input: [] },
};
const delta = (text: string): NewEvent => ({
  ...envelope,
  kind: 'text.delta',
  payload: { messageId: 'm1', text },
});
const seqs = async (store: EventStore) => (await store.read('run-1')).map((e) => e.seq);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('SqliteEventStore', () => {
  it('creates the parent directory and keeps events across close and reopen', async () => {
    const path = tempFile();
    const first = open(path);
    const written = await first.append([started, delta('a'), delta('b')]);
    await first.close();
    const again = open(path);
    expect(await again.read('run-1')).toEqual(written);
    expect(await again.getRun('run-1')).toMatchObject({ status: 'running', lastSeq: 2 });
    expect((await again.append([delta('c')]))[0]?.seq).toBe(3);
  });

  it('records each migration once, however often the file is opened', async () => {
    const path = tempFile();
    await open(path).close();
    await open(path).close();
    const db = new DatabaseSync(path);
    try {
      const rows = db.prepare('SELECT component, version FROM schema_migrations').all();
      expect(rows).toEqual(
        EVENT_STORE_MIGRATIONS.map((m) => ({ component: 'events', version: m.version })),
      );
      expect(migrate(db, 'events', EVENT_STORE_MIGRATIONS)).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('raises StoreError with the cause when the file cannot be created', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-sqlite-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const path = join(dir, 'a-file', 'sub', 'state.db');
    let caught: unknown;
    try {
      open(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StoreError);
    expect((caught as StoreError).message).toContain(path);
    expect((caught as StoreError).cause).toBeInstanceOf(Error);
  });

  it.each([true, false])(
    'keeps seq gap-free when two stores on one file append to one run (groupCommit: %s)',
    async (groupCommit) => {
      const path = tempFile();
      const a = open(path, groupCommit);
      const b = open(path, groupCommit);
      await a.append([started, delta('a0')]);
      await b.append([delta('b0')]); // a's cached tail is now stale
      expect((await a.append([delta('a1')]))[0]?.seq).toBe(3);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).append([delta(`x${i}`)])),
      );
      expect(await seqs(a)).toEqual(Array.from({ length: 44 }, (_, i) => i));
    },
  );

  it.each([true, false])(
    'keeps seq gap-free when two processes append to one run at once (groupCommit: %s)',
    async (groupCommit) => {
      const path = tempFile();
      await open(path).append([started]);
      const perWriter = 1_000;
      const writers = await Promise.all([
        startWriter(path, 'p1', perWriter, groupCommit),
        startWriter(path, 'p2', perWriter, groupCommit),
      ]);
      await Promise.all(writers.map((writer) => writer.go()));
      const events = await open(path).read('run-1');
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      expect(events).toHaveLength(1 + 2 * perWriter);
      for (const writer of ['p1', 'p2']) {
        const texts = events.flatMap((e) =>
          e.kind === 'text.delta' && e.payload.text.startsWith(writer) ? [e.payload.text] : [],
        );
        expect(texts).toEqual(Array.from({ length: perWriter }, (_, i) => `${writer}-${i}`));
      }
      for (const [i, event] of events.entries()) {
        if (i > 0) expect(event.ts >= (events[i - 1]?.ts ?? '')).toBe(true);
      }
    },
    60_000,
  );

  describe('groupCommit (the default)', () => {
    it('shows deltas to another connection at the end of the turn, other kinds at once', async () => {
      const path = tempFile();
      const writer = open(path);
      await writer.append([started]);
      const outside = new DatabaseSync(path, { readOnly: true });
      const count = () => Number(outside.prepare('SELECT COUNT(*) AS n FROM events').get()?.n);
      try {
        await writer.append([delta('a')]); // the first delta of a turn opens a group
        await writer.append([delta('b')]);
        await writer.append([delta('c')]);
        expect(await seqs(writer)).toEqual([0, 1, 2, 3]); // its own connection sees them
        expect(count()).toBe(1);
        await nextTurn();
        expect(count()).toBe(4);
        await writer.append([delta('d')]);
        await writer.append([delta('e')]);
        expect(count()).toBe(4);
        const info: NewEvent = {
          ...envelope,
          kind: 'status.reported',
          payload: { level: 'info', message: 'hi' },
        };
        await writer.append([info]); // commits the group with it
        expect(count()).toBe(7);
      } finally {
        outside.close();
      }
    });

    it('commits the starts and ends of the runs of one turn together: a start with its turn, an end before it resolves', async () => {
      const path = tempFile();
      const writer = open(path);
      const outside = new DatabaseSync(path, { readOnly: true });
      const count = () => Number(outside.prepare('SELECT COUNT(*) AS n FROM events').get()?.n);
      const runs = Array.from({ length: 20 }, (_, i) => ({
        runId: `run-${i}`,
        key: `session:s-${i}`,
      }));
      try {
        const starts = runs.map(({ runId, key }) =>
          writer.claimAndAppend({ key, runId, staleAfterMs: 60_000 }, [{ ...started, runId }]),
        );
        expect(count()).toBe(0); // written in this turn's group, not committed one by one
        const claimed = await Promise.all(starts);
        expect(claimed.every(({ claim }) => claim.acquired)).toBe(true);
        // A run's start is held: nobody was told of it yet, and it commits with its turn.
        await new Promise((resolve) => setImmediate(resolve));
        expect(count()).toBe(20);
        const ends = runs.map(({ runId, key }) =>
          writer.endRun(
            { ...envelope, runId, kind: 'run.completed', payload: { output: [], usage: null } },
            key,
          ),
        );
        expect(count()).toBe(20);
        await Promise.all(ends);
        expect(count()).toBe(40);
        for (const { key } of runs) expect(await writer.claimHolder(key)).toBeNull();
      } finally {
        outside.close();
      }
    });

    it('with groupCommit: false, shows each delta to another connection at once', async () => {
      const path = tempFile();
      const writer = open(path, false);
      await writer.append([started]);
      const outside = new DatabaseSync(path, { readOnly: true });
      const count = () => Number(outside.prepare('SELECT COUNT(*) AS n FROM events').get()?.n);
      try {
        for (const text of ['a', 'b', 'c']) await writer.append([delta(text)]);
        expect(count()).toBe(4);
      } finally {
        outside.close();
      }
    });

    it('lets another store in the process write while a group is open', async () => {
      const path = tempFile();
      const writer = open(path);
      const other = open(path, false);
      await writer.append([started, delta('a')]);
      await writer.append([delta('b')]);
      await writer.append([delta('b2')]); // opens a group
      await other.recordControl('run-1', 'cancel', null); // flushes it instead of waiting
      await other.append([delta('c')]);
      await writer.append([delta('d')]);
      expect(await seqs(other)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(await other.readControl('run-1')).toHaveLength(1);
    });

    it('opens another store on the file while a group is open (a server recording its project)', async () => {
      const path = tempFile();
      const writer = open(path);
      await writer.append([started, delta('a')]);
      await writer.append([delta('b')]); // opens a group, holding the write lock
      // Opening runs the migrations in a write transaction, synchronously: it must not wait
      // out its busy timeout on a group this process can only commit once it returns.
      const opened = Date.now();
      const other = new SqliteEventStore({ path, busyTimeoutMs: 1_000 });
      stores.push(other);
      expect(Date.now() - opened).toBeLessThan(900);
      expect(await seqs(other)).toEqual([0, 1, 2]);
    });

    it('commits the open group on close', async () => {
      const path = tempFile();
      const writer = open(path);
      await writer.append([started]);
      await writer.append([delta('a')]);
      await writer.append([delta('b')]); // held in a group
      await writer.close();
      expect(await seqs(open(path))).toEqual([0, 1, 2]);
    });
  });
});

/**
 * Start a Node process that appends `count` deltas to run-1, one awaited append each, once
 * `go()` is called: every writer is loaded and waiting before any starts, so they overlap.
 * It yields the event loop after every 10 deltas, as tokens arriving in chunks over a socket
 * do, so that group commits end and the two writers interleave.
 */
async function startWriter(path: string, writer: string, count: number, groupCommit: boolean) {
  const storeModule = fileURLToPath(new URL('./events.ts', import.meta.url));
  const script = `
    const { SqliteEventStore } = await import(process.argv[1]);
    const groupCommit = process.argv[5] === 'true';
    const store = new SqliteEventStore({ path: process.argv[2], groupCommit });
    const [writer, count] = [process.argv[3], Number(process.argv[4])];
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    for (let i = 0; i < count; i += 1) {
      await store.append([{ kind: 'text.delta', runId: 'run-1', sessionId: null, namespace: null,
        origin: writer, payload: { messageId: writer, text: writer + '-' + i } }]);
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
    }
    await store.close();
    process.exit(0);`;
  const args = ['--import', 'tsx', '--input-type=module', '-e', script];
  const argv = [storeModule, path, writer, String(count), String(groupCommit)];
  const child = spawn(process.execPath, [...args, ...argv]);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`writer ${writer} exited ${code}: ${stderr}`)),
    );
  });
  await Promise.race([
    new Promise((resolve) => child.stdout.once('data', resolve)),
    exited.then(() => {
      throw new Error(`writer ${writer} exited before it was ready: ${stderr}`);
    }),
  ]);
  return {
    go: () => {
      child.stdin.end('go\n');
      return exited;
    },
  };
}
