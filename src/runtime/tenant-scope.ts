/**
 * Tenants (docs/tenants.md): a tenant is the `namespace` every run carries in its envelope
 * and index row, set from the caller's identity when the run starts and inherited by the
 * runs it starts (child workflows, continuations). This module gives one tenant's view of
 * the event log: its own runs are found, read, listed and followed; another tenant's answer
 * exactly as an unknown run does (`null`, `[]`), so nothing says they exist. And it says
 * whether a session or thread id is already another tenant's, which the deck refuses before
 * a run on it starts. The deck (embedded API) and the HTTP surfaces (`surfaces/http/tenancy.ts`)
 * both scope through it, so there is one rule.
 */
import { ConfigError, ConflictError, NotFoundError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import {
  type AppendNotifier,
  canListByNamespace,
  type EventStore,
  type ListRunsFilter,
  type NamespaceListing,
  type ReadOptions,
  type RunIndex,
  type RunSummary,
} from '../core/store.js';

/** The part of an event store a tenant's view wraps (the HTTP surface's `EventLog`). */
export type ScopableLog = Pick<EventStore, 'read' | 'getRun' | 'listRuns'> &
  Partial<AppendNotifier> &
  Partial<NamespaceListing>;

/** `log` as tenant `namespace` sees it; `log` itself for `null`/`undefined` (no tenants). */
export function scopedLog<L extends ScopableLog>(
  log: L,
  namespace: string | null | undefined,
): ScopableLog {
  if (namespace === null || namespace === undefined) return log;
  if (!canListByNamespace(log)) throw cannotScope();
  const owned = new Set<string>();
  const owns = async (runId: string): Promise<boolean> => {
    if (owned.has(runId)) return true;
    const run = await log.getRun(runId);
    if (run?.namespace !== namespace) return false;
    owned.add(runId); // a run's namespace never changes
    return true;
  };
  const view: ScopableLog = {
    async getRun(runId: string): Promise<RunSummary | null> {
      const run = await log.getRun(runId);
      return run?.namespace === namespace ? run : null;
    },
    async read(runId: string, options?: ReadOptions): Promise<Event[]> {
      return (await owns(runId)) ? log.read(runId, options) : [];
    },
    listRuns: (filter?: ListRunsFilter) => log.listRunsIn(namespace, filter),
    listRunsIn: (other: string, filter?: ListRunsFilter) =>
      other === namespace ? log.listRunsIn(namespace, filter) : Promise.resolve([]),
  };
  const { watchRun } = log;
  if (watchRun) {
    view.watchRun = async (runId, onAppend) =>
      (await owns(runId)) ? watchRun.call(log, runId, onAppend) : () => {};
  }
  return view;
}

/**
 * Refuse, with a ConflictError, a run of tenant `namespace` on session (or thread) `sessionId`
 * when that id's latest run is another tenant's (or untenanted): ids are one space, and the
 * history behind one belongs to whoever started it. Nothing is read without a namespace.
 */
export async function checkSessionTenant(
  index: Pick<RunIndex, 'listRuns'>,
  sessionId: string | undefined,
  namespace: string | undefined,
): Promise<void> {
  if (sessionId === undefined || namespace === undefined) return;
  if (!(await sessionIsElsewhere(index, sessionId, namespace))) return;
  throw new ConflictError(
    `session (or thread) id '${sessionId}' is already in use; choose another id ` +
      '(an unguessable one: a UUID)',
  );
}

/** Whether `sessionId` has runs and the latest is not tenant `namespace`'s. */
export async function sessionIsElsewhere(
  index: Pick<RunIndex, 'listRuns'>,
  sessionId: string,
  namespace: string,
): Promise<boolean> {
  const [latest] = await index.listRuns({ sessionId, limit: 1 });
  return latest !== undefined && latest.namespace !== namespace;
}

/** Whether a caller of tenant `namespace` (none: every run) reaches run `runId`. */
export async function reaches(
  index: Pick<RunIndex, 'getRun'>,
  runId: string,
  namespace: string | undefined,
): Promise<boolean> {
  return namespace === undefined || (await index.getRun(runId))?.namespace === namespace;
}

/** `reaches`, or the NotFoundError `message` a run the log does not have gets. */
export async function mustReach(
  index: Pick<RunIndex, 'getRun'>,
  runId: string,
  namespace: string | undefined,
  message: string,
): Promise<void> {
  if (!(await reaches(index, runId, namespace))) throw new NotFoundError(message);
}

/**
 * A run's events, `played`, once {@link checkSessionTenant} allowed its session (its refusal is
 * the generator's first throw, before the run records anything); `played` itself when there
 * is nothing to check.
 */
export function sessionChecked<T, R>(
  index: Pick<RunIndex, 'listRuns'>,
  options: { sessionId?: string; namespace?: string },
  played: AsyncGenerator<T, R, undefined>,
): AsyncGenerator<T, R, undefined> {
  const { sessionId, namespace } = options;
  if (sessionId === undefined || namespace === undefined) return played;
  return afterCheck(checkSessionTenant(index, sessionId, namespace), played);
}

async function* afterCheck<T, R>(check: Promise<void>, played: AsyncGenerator<T, R, undefined>) {
  await check;
  return yield* played;
}

function cannotScope(): ConfigError {
  return new ConfigError(
    "this event store cannot list one tenant's runs (it lacks listRunsIn, NamespaceListing); " +
      'use the memory, SQLite or Postgres store to serve tenants',
  );
}
