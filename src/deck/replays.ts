/**
 * `deck.replay()` (#41): a recorded agent turn played again with a change (another model,
 * other instructions or model settings), as a new run of the same agent, linked to its source
 * by `run.started.derived_from = { run, how: 'replay', changes }`. The source's session is
 * never touched: the replay plays on a new session, `<source session>~replay-<8 hex>`, seeded
 * with the conversation as it stood before the source turn (replay-history.ts). A source run
 * without a session is replayed without one.
 *
 * What a replay cannot reproduce: its tools run again (their side effects happen again; a
 * call that needs approval waits for one, as always), the caller's per-turn instructions of a
 * stateless chat are not in the log, and the model answers anew. Tested in
 * src/deck/replays.test.ts and, over HTTP, src/surfaces/http/replays.test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { AgentDefinition } from '../authoring/agent-definition.js';
import { type AgentVariant, checkVariant, withVariant } from '../authoring/variant.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.js';
import type { DerivedFrom } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import { checkId } from '../core/ids.js';
import type { InterruptResult } from '../core/interrupt-result.js';
import type { ConversationSession } from '../core/sessions.js';
import type { RunStatus } from '../core/status.js';
import type { EventStore } from '../core/store.js';
import type { RunPlayer } from '../runtime/run-player.js';
import { turnResultFrom } from '../runtime/turn-result.js';
import { type HistorySource, historyBefore } from './replay-history.js';

/** `deck.replay()`'s options. */
export interface ReplayOptions<C = unknown> {
  /** What the replay changes; absent, the same agent plays the same input again. */
  variant?: AgentVariant;
  /** The per-run application value for the replay's tools and instructions (never stored). */
  context?: C;
  /** Only a run of this tenant (namespace) is replayed; another's is unknown (NotFoundError). */
  namespace?: string;
}

/** A replay's new run, once it stopped: ended, or waiting for a tool call's approval. */
export interface ReplayResult {
  runId: string;
  /** The replay's own session, or `null` when the source had none. */
  sessionId: string | null;
  status: RunStatus;
  /** The structured output or the final message's text; `null` unless completed. */
  output: unknown;
  /** The failed replay's error message, when it failed. */
  error?: string;
  derivedFrom: DerivedFrom;
  /** Where the history the replay was sent came from (replay-history.ts). */
  history: HistorySource;
  /** The tool call waiting for approval, when the replay stopped for one. */
  interrupt?: InterruptResult;
}

/** What a replay needs of the open deck. */
export interface ReplayParts {
  store: EventStore;
  runtime: Pick<RunPlayer, 'streamAgent'>;
  sessionFor(sessionId: string): ConversationSession;
  agents: ReadonlyMap<string, AgentDefinition>;
}

const ENDED: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export async function replayRun(
  parts: ReplayParts,
  runId: string,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const variant = checkVariant(options.variant);
  const source = await parts.store.getRun(checkId('runId', runId));
  if (!source || (options.namespace !== undefined && source.namespace !== options.namespace)) {
    throw new NotFoundError(`no run '${runId}' in the event log; nothing to replay`);
  }
  const events = await parts.store.read(runId);
  const started = events.find((e) => e.kind === 'run.started');
  if (started?.kind !== 'run.started') {
    throw new ConflictError(
      `run '${runId}' has not started yet (${source.status}); replay it once it has ended`,
    );
  }
  if (started.payload.invocableType !== 'agent') {
    throw new InvalidInputError(
      `run '${runId}' is a run of workflow '${source.origin}', and only agent turns are replayed: ` +
        'fork its thread from one of its checkpoints instead (deck.fork, POST /workflows/{name}/threads/{thread_id}/fork)',
    );
  }
  if (!ENDED.includes(source.status)) {
    throw new ConflictError(
      `run '${runId}' is still ${source.status}; replay it once it has ended (completed, failed or cancelled)`,
    );
  }
  const agent = parts.agents.get(source.origin);
  if (!agent) {
    throw new NotFoundError(
      `run '${runId}' is a turn of agent '${source.origin}', which this deck's catalog does not have`,
    );
  }
  const history = await historyBefore(parts.store, source, events);
  const sessionId =
    source.sessionId === null
      ? null
      : `${source.sessionId}~replay-${randomBytes(4).toString('hex')}`;
  if (sessionId !== null && history.items.length > 0) {
    await parts.sessionFor(sessionId).addItems(history.items);
  }
  const derivedFrom: DerivedFrom = { run: runId, how: 'replay', changes: variant ?? {} };
  const played = parts.runtime.streamAgent(
    withVariant(agent, variant),
    started.payload.input,
    {
      ...(sessionId !== null ? { sessionId } : {}),
      ...(source.namespace !== null ? { namespace: source.namespace } : {}),
      context: options.context,
      trigger: { derivedFrom },
    },
    false,
  );
  const recorded: Event[] = [];
  let step = await played.next();
  while (!step.done) {
    recorded.push(step.value);
    step = await played.next();
  }
  // An error before the run recorded anything (a refused start): nothing to report on.
  if (step.value.error !== undefined && recorded.length === 0) throw step.value.error;
  return resultOf(recorded, { sessionId, derivedFrom, history: history.source });
}

function resultOf(
  events: readonly Event[],
  known: Pick<ReplayResult, 'sessionId' | 'derivedFrom' | 'history'>,
): ReplayResult {
  const runId = events[0]?.runId ?? '';
  const last = events.at(-1);
  if (last?.kind === 'run.failed') {
    return { runId, status: 'failed', output: null, error: last.payload.message, ...known };
  }
  const turn = turnResultFrom(events, runId);
  const status: RunStatus =
    last?.kind === 'run.completed'
      ? 'completed'
      : last?.kind === 'run.interrupted'
        ? 'waiting_human'
        : last?.kind === 'run.paused'
          ? 'paused'
          : 'cancelled';
  return {
    runId,
    status,
    output: turn.output,
    ...known,
    ...(turn.interrupt ? { interrupt: turn.interrupt } : {}),
  };
}
