/**
 * Several real processes appending to one run through the Postgres event store: seq must
 * come out exactly 0..n-1, each process's own events in its order. Each child opens its own
 * store (its own pool) on this file's schema, dropped afterwards.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { dropSchemas, TEST_POSTGRES_URL, uniqueSchema } from '../../../test/support/postgres.js';
import { PostgresEventStore } from './events.js';

const schema = uniqueSchema();
afterAll(() => dropSchemas([schema]));

it('keeps seq gap-free with four processes appending to one run at once', async () => {
  const store = new PostgresEventStore({ url: TEST_POSTGRES_URL, schema });
  await store.connect(); // the schema exists before the children race on it
  const runId = `run-${crypto.randomUUID()}`;
  const writers = await Promise.all(['a', 'b', 'c', 'd'].map((w) => startWriter(runId, w, 150)));
  await Promise.all(writers.map((writer) => writer.go()));
  const events = await store.read(runId);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i));
  expect(events).toHaveLength(600);
  for (const writer of ['a', 'b', 'c', 'd']) {
    const texts = events
      .filter((event) => event.origin === writer)
      .map((event) => (event.payload as { text: string }).text);
    expect(texts).toEqual(Array.from({ length: 150 }, (_, i) => `${writer}-${i}`));
  }
  // The writers overlapped: their events interleave rather than sit in four blocks.
  const switches = events.filter((event, i) => i > 0 && event.origin !== events[i - 1]?.origin);
  expect(switches.length).toBeGreaterThan(3);
  expect(await store.getRun(runId)).toMatchObject({ lastSeq: 599, status: 'pending' });
  await store.close();
});

/**
 * Start a Node process that appends `count` deltas to `runId`, one awaited append each
 * (`groupCommit: false`: each a statement of its own), once `go()` is called: every writer is
 * connected and waiting before any starts, so they overlap.
 */
async function startWriter(runId: string, writer: string, count: number) {
  const storeModule = fileURLToPath(new URL('./events.ts', import.meta.url));
  const script = `
    const { PostgresEventStore } = await import(process.argv[1]);
    const [url, schema, runId, writer, count] = process.argv.slice(2);
    const store = new PostgresEventStore({ url, schema, groupCommit: false, poolSize: 2 });
    await store.connect();
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    for (let i = 0; i < Number(count); i += 1) {
      await store.append([{ kind: 'text.delta', runId, sessionId: null, namespace: null,
        origin: writer, payload: { messageId: writer, text: writer + '-' + i } }]);
    }
    await store.close();
    process.exit(0);`;
  const args = ['--import', 'tsx', '--input-type=module', '-e', script];
  const argv = [storeModule, TEST_POSTGRES_URL, schema, runId, writer, String(count)];
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
