/**
 * The rolling-upgrade policy on Postgres (CONTRIBUTING.md, "Migrations and rolling
 * upgrades"; the SQLite twin, sqlite/rolling-upgrade.test.ts, also checks every list's
 * declarations). What fails here when a migration breaks the previous release:
 *
 * - The schema: when the last migration is an `expand`, every column of the schema before it
 *   is still there with its type, and no column it adds to an existing table is NOT NULL
 *   without a default.
 * - The previous release's SQL: `test/fixtures/layouts/postgres/events-<layout>.json` keeps
 *   the statements (and parameters) a release's store sent for the shared workload
 *   (test/support/layout-workload.ts), on one connection; each recording whose layout can
 *   still use the store (at least its `oldest_usable`) is replayed against a fresh schema
 *   migrated with every migration, and a statement that fails, or a read that returns other
 *   columns or another number of rows, fails the test. RECORD_LAYOUT=1 records the current
 *   layout's (when a migration is added, or the statements change within a layout).
 * - Opening: a schema ahead by expansions only opens; one ahead by a breaking step refuses
 *   with a ConfigError naming both layouts and the release it needs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  expandBreaks,
  keepRecording,
  PACKAGE_VERSION,
  plain,
  type Recorded,
  type Recording,
  recordingsDir,
  recordingsIn,
  runWorkload,
} from '../../../test/support/layout-workload.js';
import { dropSchemas, TEST_POSTGRES_URL, uniqueSchema } from '../../../test/support/postgres.js';
import { ConfigError } from '../../core/errors.js';
import { layoutOf, type Migration } from '../shared/migration.js';
import { PostgresEventStore } from './events.js';
import { EVENT_STORE_MIGRATIONS, migrate } from './migrations.js';

const RECORDINGS = recordingsDir('postgres');
const VERSION = PACKAGE_VERSION;

const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

/** A client on a fresh schema of its own (first on its search path). */
async function onFreshSchema(): Promise<{ client: pg.Client; schema: string }> {
  const schema = uniqueSchema();
  schemas.push(schema);
  const client = new pg.Client({
    connectionString: TEST_POSTGRES_URL,
    options: `-c search_path=${schema}`,
  });
  await client.connect();
  return { client, schema };
}

async function migrated<T>(
  migrations: readonly Migration[],
  body: (client: pg.Client, schema: string) => Promise<T>,
): Promise<T> {
  const { client, schema } = await onFreshSchema();
  try {
    await migrate(client as unknown as pg.PoolClient, schema, 'events', migrations);
    return await body(client, schema);
  } finally {
    await client.end();
  }
}

async function columns(
  client: pg.Client,
  schema: string,
): Promise<Map<string, Map<string, string>>> {
  const { rows } = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
    is_identity: string;
    is_generated: string;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, is_generated
      FROM information_schema.columns WHERE table_schema = $1 AND table_name NOT LIKE 'schema\\_%'`,
    [schema],
  );
  const tables = new Map<string, Map<string, string>>();
  for (const row of rows) {
    const defaulted =
      row.column_default ??
      (row.is_identity === 'YES' || row.is_generated === 'ALWAYS' ? 'generated' : '');
    const shape = `${row.data_type} ${row.is_nullable === 'YES' ? 'NULL' : 'NOT NULL'} ${defaulted}`;
    tables.set(
      row.table_name,
      (tables.get(row.table_name) ?? new Map()).set(row.column_name, shape),
    );
  }
  return tables;
}

const schemaAfter = (migrations: readonly Migration[]) => migrated(migrations, columns);

describe('the last Postgres migration keeps the previous schema when it expands', () => {
  const last = EVENT_STORE_MIGRATIONS.at(-1) as Migration;

  it.skipIf(last.compatibility !== 'expand')(`migration ${last.version} only adds`, async () => {
    const [before, after] = await Promise.all([
      schemaAfter(EVENT_STORE_MIGRATIONS.slice(0, -1)),
      schemaAfter(EVENT_STORE_MIGRATIONS),
    ]);
    expect(expandBreaks(before, after)).toEqual([]);
  });

  it('the check sees a dropped column', async () => {
    const [before, after] = await Promise.all([
      schemaAfter(EVENT_STORE_MIGRATIONS),
      schemaAfter([
        ...EVENT_STORE_MIGRATIONS,
        {
          version: 99,
          name: 'test',
          compatibility: 'expand',
          release: VERSION,
          sql: 'ALTER TABLE continuations DROP COLUMN saved_at; ALTER TABLE claims ADD COLUMN holder TEXT NOT NULL',
        },
      ]),
    ]);
    expect(expandBreaks(before, after).sort()).toEqual([
      'claims.holder is new, NOT NULL and has no default',
      'continuations.saved_at is gone',
    ]);
  });
});

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/** Run `body`, recording every statement a `pg` client sends meanwhile, with what it read. */
async function recording(body: () => Promise<void>): Promise<Recorded[]> {
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  const recorded: Recorded[] = [];
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args;
    const config =
      typeof first === 'string'
        ? { text: first, values: Array.isArray(second) ? second : [] }
        : (first as { text?: string; values?: unknown[] });
    const entry: Recorded | null =
      typeof config?.text === 'string'
        ? { sql: config.text, params: (config.values ?? []).map(plain) }
        : null;
    if (entry) recorded.push(entry);
    const keep = (answer: pg.QueryResult | undefined) => {
      if (entry && answer?.fields?.length) {
        entry.columns = answer.fields.map((f) => f.name);
        entry.rows = answer.rows.length;
      }
    };
    // pg-pool's `pool.query` passes a callback; a client's own `query` returns a promise.
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, answer: pg.QueryResult) => {
        if (!error) keep(answer);
        return (last as (error: unknown, answer: unknown) => unknown)(error, answer);
      };
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(keep, () => {});
    return result;
  };
  try {
    await body();
  } finally {
    proto.query = original;
  }
  return recorded;
}

async function replay(client: pg.Client, statements: readonly Recorded[]): Promise<string[]> {
  const failures: string[] = [];
  for (const [i, entry] of statements.entries()) {
    const where = `statement ${i} (${entry.sql.replace(/\s+/g, ' ').slice(0, 100)})`;
    try {
      const answer = await client.query(entry.sql, entry.params);
      if (entry.columns === undefined) continue;
      const names = answer.fields.map((f) => f.name);
      if (JSON.stringify(names) !== JSON.stringify(entry.columns)) {
        failures.push(
          `${where}: reads columns ${names.join(', ')}, not ${entry.columns.join(', ')}`,
        );
      } else if (answer.rows.length !== entry.rows) {
        failures.push(`${where}: reads ${answer.rows.length} rows, not ${entry.rows}`);
      }
    } catch (error) {
      failures.push(`${where}: ${(error as Error).message}`);
    }
  }
  return failures;
}

async function recordWorkload(): Promise<Recording> {
  const schema = uniqueSchema();
  schemas.push(schema);
  // One connection, no notices: the statements in the order one connection ran them.
  const store = new PostgresEventStore({
    url: TEST_POSTGRES_URL,
    schema,
    poolSize: 1,
    notify: false,
    groupCommit: false,
  });
  try {
    await store.ping(); // migrated before the recording starts
    const statements = await recording(() => runWorkload(store));
    return {
      backend: 'postgres',
      layout: layoutOf(EVENT_STORE_MIGRATIONS).version,
      release: VERSION,
      statements,
    };
  } finally {
    await store.close();
  }
}

describe("the previous releases' Postgres statements on the current schema", () => {
  const code = layoutOf(EVENT_STORE_MIGRATIONS);

  it('the current layout has its recording (RECORD_LAYOUT=1 makes it)', async () => {
    const path = join(RECORDINGS, `events-${code.version}.json`);
    if (process.env.RECORD_LAYOUT === '1') keepRecording(RECORDINGS, await recordWorkload());
    expect(existsSync(path), `no ${path}: run this test with RECORD_LAYOUT=1 and commit it`).toBe(
      true,
    );
  });

  it('every recording of a layout that can still use the store replays on a fresh one', async () => {
    const usable = recordingsIn(RECORDINGS).filter((r) => r.layout >= code.oldestUsable);
    expect(usable.length).toBeGreaterThan(0);
    for (const recorded of usable) {
      const failures = await migrated(EVENT_STORE_MIGRATIONS, (client) =>
        replay(client, recorded.statements),
      );
      expect(failures, `layout ${recorded.layout}'s statements`).toEqual([]);
    }
  });

  it('the replay sees a column the last migration drops', async () => {
    const [recorded] = recordingsIn(RECORDINGS).slice(-1);
    if (!recorded) throw new Error('no recording');
    const failures = await migrated(
      [
        ...EVENT_STORE_MIGRATIONS,
        {
          version: 99,
          name: 'test',
          compatibility: 'contract',
          release: VERSION,
          sql: 'ALTER TABLE continuations DROP COLUMN saved_at',
        },
      ],
      (client) => replay(client, recorded.statements),
    );
    expect(failures.join('\n')).toMatch(/column "saved_at" .*does not exist/);
  });
});

describe('opening a Postgres schema ahead of the code', () => {
  const step = (compatibility: Migration['compatibility']): Migration => ({
    version: EVENT_STORE_MIGRATIONS.length + 1,
    name: 'a newer release',
    compatibility,
    release: '9.9.9',
    sql: 'CREATE TABLE newer (id INTEGER PRIMARY KEY)',
  });
  const code = EVENT_STORE_MIGRATIONS.length;

  it('uses one a newer release only expanded', async () => {
    const schema = await migrated(
      [...EVENT_STORE_MIGRATIONS, step('expand')],
      async (_, name) => name,
    );
    const store = new PostgresEventStore({
      url: TEST_POSTGRES_URL,
      schema,
      poolSize: 1,
      notify: false,
    });
    try {
      expect(await store.listRuns({ limit: 1 })).toEqual([]);
      expect(await store.layout()).toMatchObject({ version: code + 1, code_version: code });
    } finally {
      await store.close();
    }
  });

  it('refuses one a newer release broke, naming both layouts and the release it needs', async () => {
    const schema = await migrated(
      [...EVENT_STORE_MIGRATIONS, step('breaking')],
      async (_, name) => name,
    );
    const store = new PostgresEventStore({
      url: TEST_POSTGRES_URL,
      schema,
      poolSize: 1,
      notify: false,
    });
    try {
      const failure = await store.listRuns({ limit: 1 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConfigError);
      expect(String((failure as Error).message)).toMatch(
        new RegExp(
          `at layout ${code + 1} and needs code of layout ${code + 1} or later \\(agentdeck 9\\.9\\.9 or later\\); this process knows layout ${code}`,
        ),
      );
    } finally {
      await store.close();
    }
  });
});
