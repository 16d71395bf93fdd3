/**
 * What a new run does when its session (an agent's) or thread (a workflow's) is busy: a run
 * plays there, waits there for a person, or waits in the queue for it (#40, `multitask`).
 * - `reject` (the default): ConflictError (HTTP 409) naming the run in the way;
 * - `enqueue`: the new run goes after it (a background run waits in the queue for the session);
 * - `interrupt`: the runs in the way are cancelled (a playing one at its next safe point), then
 *   the new run goes;
 * - `rollback`: as `interrupt`, and the unfinished turn of the agent run it stopped is taken
 *   out of the session (its user message, written when it began), as if it never happened.
 *   A workflow's thread keeps its checkpoints: there `rollback` is refused, use `interrupt`.
 * Tested in src/deck/background-runs.test.ts.
 */
import { ConflictError, InvalidInputError } from '../core/errors.js';
import type { ConversationSession } from '../core/sessions.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { EventStore, RunSummary } from '../core/store.js';
import { sessionClaimKey } from '../runtime/claims.js';
import { endsWithMessageOf, popTurn } from '../runtime/session-turns.js';
import { checkSessionTenant, sessionChecked } from '../runtime/tenant-scope.js';
import { threadClaimKey } from '../runtime/workflow-run.js';

export const MULTITASK = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export type Multitask = (typeof MULTITASK)[number];

export interface MultitaskParts {
  store: EventStore;
  cancel(runId: string, reason: string): Promise<unknown>;
  sessionFor(sessionId: string): ConversationSession;
}

/** How long a synchronous run's `enqueue`, `interrupt` or `rollback` waits for the session by default. */
export const MULTITASK_WAIT_MS = 60_000;

/** How long `rollback` waits for the run it cancelled to end before it edits the session. */
const ROLLBACK_WAIT_MS = 10_000;

/** Make way on `sessionId` for a new run of `target` as `multitask` says (see above). */
export async function makeWay(
  parts: MultitaskParts,
  target: { kind: 'agent' | 'workflow'; name: string },
  sessionId: string | undefined,
  multitask: Multitask = 'reject',
): Promise<void> {
  if (!(MULTITASK as readonly string[]).includes(multitask)) {
    throw new InvalidInputError(
      `multitask must be one of ${MULTITASK.join(', ')}, got ${JSON.stringify(multitask)}`,
    );
  }
  if (sessionId === undefined || multitask === 'enqueue') return;
  if (multitask === 'rollback' && target.kind === 'workflow') {
    throw new InvalidInputError(
      `multitask 'rollback' takes a turn out of an agent's session; workflow '${target.name}' keeps its thread's checkpoints: use 'interrupt'`,
    );
  }
  const inTheWay = await runsInTheWay(parts.store, target, sessionId);
  if (inTheWay.length === 0) return;
  if (multitask === 'reject') {
    const [first] = inTheWay;
    throw new ConflictError(
      `${target.kind === 'agent' ? 'session' : 'thread'} '${sessionId}' is busy: run '${first?.runId}' is ${first?.status} there; ` +
        "pass multitask 'enqueue' to run after it, or 'interrupt' to cancel it first",
      { holderRunId: first?.runId as string },
    );
  }
  const reason = `interrupted by a newer run on '${sessionId}' (multitask '${multitask}')`;
  for (const run of inTheWay) await parts.cancel(run.runId, reason);
  if (multitask !== 'rollback') return;
  const playing = inTheWay.find((run) => run.status === 'running');
  if (!playing) return;
  const ended = await endOf(parts.store, playing.runId);
  if (ended !== 'cancelled' && ended !== 'failed') return;
  // Only the stopped turn's own message: a turn cancelled before it wrote it left the
  // session ending with the last completed turn, which stays.
  const session = parts.sessionFor(sessionId);
  if (await endsWithMessageOf(parts.store, session, playing.runId)) await popTurn(session);
}

/** What a synchronous run's `multitask` needs of the deck (a `Deck` is one). */
export interface MultitaskDeck {
  cancel(runId: string, options: { reason: string; namespace?: string }): Promise<unknown>;
  sessionFor(sessionId: string): ConversationSession;
}

/** A synchronous run's options `multitask` reads (RunOptions). */
export interface MultitaskOptions {
  sessionId?: string;
  namespace?: string;
  multitask?: Multitask;
  multitaskWaitMs?: number;
}

/**
 * `played` (a synchronous run, `deck.run()` / `deck.stream()`), started once its session or
 * thread is free as `options.multitask` says: without one, as before (the runtime's claim
 * refuses a busy session); `reject` refuses a run in the way (as `POST /runs` does);
 * `enqueue` waits for the runs in the way to end; `interrupt` and `rollback` cancel them
 * (makeWay), then wait for them to end. A wait is bounded by `multitaskWaitMs` (default
 * {@link MULTITASK_WAIT_MS}): past it, a ConflictError names the run still in the way. A
 * session another tenant uses is refused before any run is cancelled.
 */
export function whenFree<T, R>(
  deck: MultitaskDeck,
  store: EventStore,
  target: { kind: 'agent' | 'workflow'; name: string },
  options: MultitaskOptions,
  played: AsyncGenerator<T, R, undefined>,
): AsyncGenerator<T, R, undefined> {
  if (options.multitask === undefined) return sessionChecked(store, options, played);
  return afterWay(makeWayAndWait(deck, store, target, options), played);
}

async function* afterWay<T, R>(way: Promise<void>, played: AsyncGenerator<T, R, undefined>) {
  try {
    await way;
  } catch (error) {
    await played.return(undefined as R); // never started: nothing recorded
    throw error;
  }
  return yield* played;
}

async function makeWayAndWait(
  deck: MultitaskDeck,
  store: EventStore,
  target: { kind: 'agent' | 'workflow'; name: string },
  { sessionId, namespace, multitask, multitaskWaitMs = MULTITASK_WAIT_MS }: MultitaskOptions,
): Promise<void> {
  if (!Number.isFinite(multitaskWaitMs) || multitaskWaitMs < 0) {
    throw new InvalidInputError(
      `multitaskWaitMs must be a number of milliseconds >= 0, got ${multitaskWaitMs}`,
    );
  }
  await checkSessionTenant(store, sessionId, namespace);
  const parts = {
    store,
    cancel: (runId: string, reason: string) =>
      deck.cancel(runId, namespace === undefined ? { reason } : { reason, namespace }),
    sessionFor: (id: string) => deck.sessionFor(id),
  };
  await makeWay(parts, target, sessionId, multitask);
  if (sessionId === undefined || multitask === 'reject') return;
  const deadline = Date.now() + multitaskWaitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    const [first] = await runsInTheWay(store, target, sessionId);
    if (!first) return;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ConflictError(
        `${target.kind === 'agent' ? 'session' : 'thread'} '${sessionId}' is still busy after ${multitaskWaitMs} ms ` +
          `(multitask '${multitask}'): run '${first.runId}' is ${first.status} there`,
        { holderRunId: first.runId },
      );
    }
    await new Promise((done) => setTimeout(done, Math.min(delay, left)));
  }
}

/** The live runs on the session or thread (its claim's holder) and the runs queued for it. */
async function runsInTheWay(
  store: EventStore,
  target: { kind: 'agent' | 'workflow'; name: string },
  sessionId: string,
): Promise<RunSummary[]> {
  const key =
    target.kind === 'agent' ? sessionClaimKey(sessionId) : threadClaimKey(target.name, sessionId);
  const holder = await store.claimHolder(key);
  const held = holder ? await store.getRun(holder.runId) : null;
  const queued = await store.listRuns({ sessionId, status: 'queued', limit: 100 });
  const runs = held && !TERMINAL_STATUSES.includes(held.status) ? [held] : [];
  // A thread is one workflow's; a session is shared by the agents that name it.
  const same = (run: RunSummary) => target.kind === 'agent' || run.origin === target.name;
  return [...runs, ...queued.filter((run) => same(run) && run.runId !== held?.runId)];
}

async function endOf(store: EventStore, runId: string): Promise<string | null> {
  const deadline = Date.now() + ROLLBACK_WAIT_MS;
  for (;;) {
    const status = (await store.getRun(runId))?.status ?? null;
    if (status === null || TERMINAL_STATUSES.includes(status)) return status;
    if (Date.now() > deadline) return null;
    await new Promise((done) => setTimeout(done, 20));
  }
}
