/**
 * The rolling-upgrade policy on SQLite (CONTRIBUTING.md, "Migrations and rolling upgrades"):
 * a release's migrations keep the previous release working on the same store. What fails
 * here when a migration breaks it:
 *
 * - Declarations: every migration says `expand`, `contract` or `breaking` and its release;
 *   after the policy's start no migration is `breaking`, and no release both expands and
 *   contracts.
 * - The schema: when the last migration is an `expand`, every column of the schema before it
 *   is still there with its type, and no column it adds to an existing table is NOT NULL
 *   without a default (the previous release's INSERTs leave it out).
 * - The previous release's SQL: `test/fixtures/layouts/sqlite/events-<layout>.json` keeps,
 *   for each layout since the policy, the statements (and parameters) that release's store
 *   ran for a representative workload (runWorkload: append, list, claim, control,
 *   continuations, queue, prune). Each recording whose layout can still use the store (at
 *   least its `oldest_usable`) is replayed, statement by statement, against a fresh file
 *   migrated with every migration; a statement that fails, or a read that returns other
 *   columns or another number of rows than it did, fails the test. This runs the previous
 *   release's own statements, not today's code, so a column dropped or renamed under it is
 *   caught. The recording of the current layout is made with RECORD_LAYOUT=1 when a
 *   migration is added (and again when the store's statements change within a layout).
 * - Opening: a store ahead by expansions only opens (and works); one ahead by a breaking step
 *   refuses with a ConfigError naming both layouts and the release it needs.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import {
  BEFORE_THE_POLICY,
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
import { ConfigError } from '../../core/errors.js';
import { EVENT_STORE_MIGRATIONS as POSTGRES_MIGRATIONS } from '../postgres/migrations.js';
import { layoutOf, type Migration } from '../shared/migration.js';
import { CHECKPOINT_MIGRATIONS } from './checkpointer-schema.js';
import { sqliteModule } from './driver.js';
import { SqliteEventStore } from './events.js';
import { EVENT_STORE_MIGRATIONS, migrate, readLayout } from './migrations.js';

const RECORDINGS = recordingsDir('sqlite');
const VERSION = PACKAGE_VERSION;

const file = () => join(mkdtempSync(join(tmpdir(), 'agentdeck-upgrade-')), 'state.db');
const open = (path: string) => new (sqliteModule().DatabaseSync)(path);

function semver(version: string): number[] {
  return version.split(/[.-]/).slice(0, 3).map(Number);
}
function notAfter(a: string, b: string): boolean {
  const [x, y] = [semver(a), semver(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return true;
}

describe.each([
  ['SQLite events', EVENT_STORE_MIGRATIONS, BEFORE_THE_POLICY.events],
  ['SQLite checkpoints', CHECKPOINT_MIGRATIONS, BEFORE_THE_POLICY.checkpoints],
  ['Postgres events', POSTGRES_MIGRATIONS, BEFORE_THE_POLICY.events],
] as const)('%s migrations declare what they do to the release before', (_, migrations, since) => {
  it('numbered 1, 2, 3..., each with its compatibility and a release no later than this one', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    let release = '0.0.0';
    for (const migration of migrations) {
      expect(['expand', 'contract', 'breaking']).toContain(migration.compatibility);
      expect(migration.release).toMatch(/^\d+\.\d+\.\d+/);
      expect(notAfter(release, migration.release), `migration ${migration.version}`).toBe(true);
      expect(notAfter(migration.release, VERSION), `migration ${migration.version}`).toBe(true);
      release = migration.release;
    }
  });

  it('since the policy: none breaking, and no release both expands and contracts', () => {
    const kept = migrations.filter((m) => m.version > since);
    for (const migration of kept) {
      expect(migration.compatibility, `migration ${migration.version}`).not.toBe('breaking');
      const same = kept.filter((m) => m.release === migration.release);
      expect(
        new Set(same.map((m) => m.compatibility)).size,
        `release ${migration.release} both expands and contracts (migrations ${same.map((m) => m.version).join(', ')}): contract in a later release`,
      ).toBe(1);
    }
  });
});

/** Each table's columns: name → `type notnull default`. */
function columns(db: DatabaseSync): Map<string, Map<string, string>> {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'schema_%'",
    )
    .all()
    .map((row) => String(row.name));
  return new Map(
    tables.map((table) => [
      table,
      new Map(
        db
          .prepare(`PRAGMA table_info(${JSON.stringify(table)})`)
          .all()
          .map((c) => [
            String(c.name),
            `${c.type} ${c.notnull ? 'NOT NULL' : 'NULL'} ${c.dflt_value ?? ''}`,
          ]),
      ),
    ]),
  );
}

function schemaAfter(migrations: readonly Migration[]) {
  const db = open(':memory:');
  migrate(db, 'events', migrations);
  const shape = columns(db);
  db.close();
  return shape;
}

describe('the last SQLite migration keeps the previous schema when it expands', () => {
  const last = EVENT_STORE_MIGRATIONS.at(-1) as Migration;

  it.skipIf(last.compatibility !== 'expand')(`migration ${last.version} only adds`, () => {
    const before = schemaAfter(EVENT_STORE_MIGRATIONS.slice(0, -1));
    expect(expandBreaks(before, schemaAfter(EVENT_STORE_MIGRATIONS))).toEqual([]);
  });

  it('the check sees a dropped column, a retyped one and a new NOT NULL one', () => {
    const extra = (sql: string): Migration[] => [
      ...EVENT_STORE_MIGRATIONS,
      { version: 99, name: 'test', compatibility: 'expand', release: VERSION, sql },
    ];
    const before = schemaAfter(EVENT_STORE_MIGRATIONS);
    expect(
      expandBreaks(before, schemaAfter(extra('ALTER TABLE continuations DROP COLUMN saved_at'))),
    ).toEqual(['continuations.saved_at is gone']);
    expect(
      expandBreaks(
        before,
        schemaAfter(extra("ALTER TABLE claims ADD COLUMN holder TEXT NOT NULL DEFAULT ''")),
      ),
    ).toEqual([]);
    expect(
      expandBreaks(
        before,
        schemaAfter(extra('ALTER TABLE claims RENAME COLUMN lease_ms TO lease')),
      ),
    ).toEqual(['claims.lease_ms is gone']);
  });
});

/** Run `body`, recording every statement SQLite runs meanwhile (any connection). */
async function recording(body: () => Promise<void>): Promise<Recorded[]> {
  const { DatabaseSync, StatementSync } = sqliteModule();
  const statement = StatementSync.prototype as unknown as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const database = DatabaseSync.prototype as unknown as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  const saved = {
    run: statement.run as (...args: unknown[]) => unknown,
    get: statement.get as (...args: unknown[]) => unknown,
    all: statement.all as (...args: unknown[]) => unknown,
    exec: database.exec as (...args: unknown[]) => unknown,
  };
  const recorded: Recorded[] = [];
  for (const method of ['run', 'get', 'all'] as const) {
    const original = saved[method] as (...args: unknown[]) => unknown;
    statement[method] = function (this: StatementSync, ...params: unknown[]) {
      const result = original.apply(this, params);
      const entry: Recorded = { sql: this.sourceSQL, params: params.map(plain) };
      if (method !== 'run') {
        const rows =
          method === 'get' ? (result === undefined ? [] : [result]) : (result as object[]);
        entry.columns = this.columns().map((c) => c.name);
        entry.rows = rows.length;
      }
      recorded.push(entry);
      return result;
    };
  }
  database.exec = function (this: DatabaseSync, sql: unknown) {
    recorded.push({ sql: String(sql), params: [] });
    return (saved.exec as (sql: unknown) => unknown).call(this, sql);
  };
  try {
    await body();
  } finally {
    Object.assign(statement, { run: saved.run, get: saved.get, all: saved.all });
    database.exec = saved.exec;
  }
  return recorded;
}

/** Replay `statements` on `db`; what failed or read differently, one line each. */
function replay(db: DatabaseSync, statements: readonly Recorded[]): string[] {
  const failures: string[] = [];
  for (const [i, entry] of statements.entries()) {
    const where = `statement ${i} (${entry.sql.replace(/\s+/g, ' ').slice(0, 100)})`;
    try {
      if (
        entry.columns === undefined &&
        entry.params.length === 0 &&
        !/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)/i.test(entry.sql)
      ) {
        db.exec(entry.sql);
        continue;
      }
      const statement = db.prepare(entry.sql);
      const params = entry.params as never[];
      if (entry.columns === undefined) {
        statement.run(...params);
        continue;
      }
      const rows = statement.all(...params);
      const columns = statement.columns().map((c) => c.name);
      if (JSON.stringify(columns) !== JSON.stringify(entry.columns)) {
        failures.push(
          `${where}: reads columns ${columns.join(', ')}, not ${entry.columns.join(', ')}`,
        );
      } else if (rows.length !== entry.rows) {
        failures.push(`${where}: reads ${rows.length} rows, not ${entry.rows}`);
      }
    } catch (error) {
      failures.push(`${where}: ${(error as Error).message}`);
    }
  }
  return failures;
}

async function recordWorkload(): Promise<Recording> {
  const store = new SqliteEventStore({ path: file(), groupCommit: false });
  try {
    const statements = await recording(() => runWorkload(store));
    const { version } = layoutOf(EVENT_STORE_MIGRATIONS);
    return { backend: 'sqlite', layout: version, release: VERSION, statements };
  } finally {
    await store.close();
  }
}

describe("the previous releases' SQLite statements on the current schema", () => {
  const code = layoutOf(EVENT_STORE_MIGRATIONS);

  it('the current layout has its recording (RECORD_LAYOUT=1 makes it)', async () => {
    const path = join(RECORDINGS, `events-${code.version}.json`);
    if (process.env.RECORD_LAYOUT === '1') keepRecording(RECORDINGS, await recordWorkload());
    expect(existsSync(path), `no ${path}: run this test with RECORD_LAYOUT=1 and commit it`).toBe(
      true,
    );
  });

  it('every recording of a layout that can still use the store replays on a fresh one', () => {
    const usable = recordingsIn(RECORDINGS).filter((r) => r.layout >= code.oldestUsable);
    expect(usable.length).toBeGreaterThan(0);
    for (const recorded of usable) {
      const db = open(file());
      try {
        migrate(db, 'events', EVENT_STORE_MIGRATIONS);
        expect(replay(db, recorded.statements), `layout ${recorded.layout}'s statements`).toEqual(
          [],
        );
      } finally {
        db.close();
      }
    }
  });

  it('the replay sees a column the last migration drops', async () => {
    const recorded = await recordWorkload();
    const db = open(file());
    migrate(db, 'events', [
      ...EVENT_STORE_MIGRATIONS,
      {
        version: 99,
        name: 'test',
        compatibility: 'contract',
        release: VERSION,
        sql: 'ALTER TABLE continuations DROP COLUMN saved_at',
      },
    ]);
    expect(replay(db, recorded.statements).join('\n')).toMatch(
      /no such column: saved_at|has no column named saved_at/,
    );
    db.close();
  });
});

describe('opening a store ahead of the code', () => {
  const step = (compatibility: Migration['compatibility']): Migration => ({
    version: EVENT_STORE_MIGRATIONS.length + 1,
    name: 'a newer release',
    compatibility,
    release: '9.9.9',
    sql: 'CREATE TABLE newer (id INTEGER PRIMARY KEY)',
  });

  it('uses one a newer release only expanded, and leaves its layout as that release wrote it', async () => {
    const path = file();
    const db = open(path);
    migrate(db, 'events', [...EVENT_STORE_MIGRATIONS, step('expand')]);
    db.close();
    const store = new SqliteEventStore({ path });
    await store.append([
      {
        runId: 'r1',
        sessionId: null,
        namespace: null,
        origin: 'a',
        kind: 'run.started',
        payload: { invocableType: 'agent', input: [] },
      },
    ]);
    expect(await store.read('r1')).toHaveLength(1);
    const code = EVENT_STORE_MIGRATIONS.length;
    expect(await store.layout()).toEqual({
      version: code + 1,
      code_version: code,
      oldest_usable: layoutOf(EVENT_STORE_MIGRATIONS).oldestUsable,
      oldest_usable_release: expect.any(String),
    });
    await store.close();
  });

  it('refuses one a newer release broke, naming both layouts and the release it needs', () => {
    const path = file();
    const db = open(path);
    migrate(db, 'events', [...EVENT_STORE_MIGRATIONS, step('breaking')]);
    const code = EVENT_STORE_MIGRATIONS.length;
    expect(readLayout(db, 'events', EVENT_STORE_MIGRATIONS)).toMatchObject({
      version: code + 1,
      oldest_usable: code + 1,
      oldest_usable_release: '9.9.9',
    });
    db.close();
    const opening = () => new SqliteEventStore({ path });
    expect(opening).toThrow(ConfigError);
    expect(opening).toThrow(
      new RegExp(
        `at layout ${code + 1} and needs code of layout ${code + 1} or later \\(agentdeck 9\\.9\\.9 or later\\); this process knows layout ${code}`,
      ),
    );
  });
});
