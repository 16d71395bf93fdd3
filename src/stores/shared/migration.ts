/**
 * A schema step, as every SQL backend records it in its `schema_migrations` table, and the
 * rolling-upgrade rule both backends apply when they open a store (CONTRIBUTING.md,
 * "Migrations and rolling upgrades"). A component's *layout* is the version of its last
 * applied migration; a release's code knows the layout of its last migration. Each migration
 * says what it does to the releases before it (`compatibility`), and a store records, beside
 * its migrations (`schema_layout`), its layout, the oldest layout whose code can still use
 * it and the release that first has that layout. A process whose code knows layout N opens
 * a store at layout M > N (a newer release migrated it during a rolling upgrade) only when
 * that oldest layout is <= N, and otherwise refuses, naming the release it needs.
 */
import { ConfigError } from '../../core/errors.js';
import type { StoreLayout } from '../../core/store.js';

export type { StoreLayout };

/** One schema step. Never edit a released migration; add the next version instead. */
export interface Migration {
  /** 1, 2, 3... in order, per component. */
  version: number;
  /** A few words on what the step does, recorded with it. */
  name: string;
  /**
   * What the step does to the releases before it:
   * - `expand` adds only what they ignore (a table, a nullable column, an index): every
   *   release that could use the store before still can.
   * - `contract` drops, renames or retypes something only releases before the previous one
   *   use (the previous release stopped using it, and expanded for its replacement): the
   *   previous release still uses the store, older ones refuse it. Never in the release that
   *   expands for the change: expand in one release, contract in a later one.
   * - `breaking` takes away what the previous release uses: only this layout's code and
   *   newer use the store. The migrations from before the policy; no new one may be.
   */
  compatibility: 'expand' | 'contract' | 'breaking';
  /**
   * The release that first ships the step (`package.json`'s version while unreleased):
   * named to an older process that must refuse a store migrated past it.
   */
  release: string;
  /** The statements, run as one script inside the migration transaction. */
  sql: string;
}

/**
 * The layout `migrations` leave behind: the last version, and the oldest layout whose code
 * can use the store (with the release that first has it). A `breaking` step at V makes it V;
 * a `contract` step makes it the layout before the first step of its release (the previous
 * release's); an `expand` step leaves it as it was.
 */
export function layoutOf(migrations: readonly Migration[]): {
  version: number;
  oldestUsable: number;
  oldestUsableRelease: string;
} {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  let oldest = sorted[0]?.version ?? 0;
  for (const step of sorted) {
    if (step.compatibility === 'breaking') oldest = step.version;
    if (step.compatibility === 'contract') {
      const first = sorted.find((m) => m.release === step.release)?.version ?? step.version;
      oldest = Math.max(oldest, first - 1);
    }
  }
  const release = sorted.find((m) => m.version === oldest)?.release ?? sorted[0]?.release ?? '';
  return {
    version: sorted.at(-1)?.version ?? 0,
    oldestUsable: oldest,
    oldestUsableRelease: release,
  };
}

/** The table beside `schema_migrations` that records each component's layout. */
export const SCHEMA_LAYOUT_TABLE = `CREATE TABLE IF NOT EXISTS schema_layout (
  component TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  oldest_usable INTEGER NOT NULL,
  oldest_usable_release TEXT NOT NULL,
  written_by TEXT NOT NULL,
  updated_at TEXT NOT NULL
)`;

/** A `schema_layout` row as read back. */
export interface LayoutRow {
  version: number;
  oldest_usable: number;
  oldest_usable_release: string;
}

/**
 * What opening a store at `storedVersion` (its last applied migration, `row` its recorded
 * layout) with code that knows `migrations` does: `'migrate'` (the store is at or behind
 * the code), `'use'` (ahead, but a newer release only expanded it since this code's layout),
 * or a `ConfigError` naming the layouts and the release needed.
 */
export function checkLayout(
  what: string,
  storedVersion: number,
  row: LayoutRow | undefined,
  migrations: readonly Migration[],
): 'migrate' | 'use' {
  const code = layoutOf(migrations).version;
  if (storedVersion <= code) return 'migrate';
  // A store ahead of the code with no layout recorded: its newer writer predates the rule.
  const oldest = row ? Number(row.oldest_usable) : storedVersion;
  if (oldest <= code) return 'use';
  const release = row?.oldest_usable_release || 'a newer release';
  throw new ConfigError(
    `${what} is at layout ${storedVersion} and needs code of layout ${oldest} or later ` +
      `(agentdeck ${release} or later); this process knows layout ${code}: ` +
      `deploy agentdeck ${release} or later, or open a store this release migrated`,
  );
}

/** `layoutOf(migrations)` as the `schema_layout` row a migration writes. */
export function layoutRow(migrations: readonly Migration[]): LayoutRow {
  const layout = layoutOf(migrations);
  return {
    version: layout.version,
    oldest_usable: layout.oldestUsable,
    oldest_usable_release: layout.oldestUsableRelease,
  };
}

/** The layout reported for a store at `row` whose code knows `migrations`. */
export function reportLayout(
  row: LayoutRow | undefined,
  storedVersion: number,
  migrations: readonly Migration[],
): StoreLayout {
  const own = layoutRow(migrations);
  const ahead = storedVersion > own.version;
  return {
    version: storedVersion,
    code_version: own.version,
    oldest_usable: row ? Number(row.oldest_usable) : ahead ? storedVersion : own.oldest_usable,
    oldest_usable_release: row?.oldest_usable_release ?? (ahead ? '' : own.oldest_usable_release),
  };
}
