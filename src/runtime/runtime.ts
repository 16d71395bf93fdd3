/**
 * The Runtime plays every run, whoever starts it (the Deck's methods, HTTP, a timer), and
 * records it the same way. It owns the event store, the engines and the session backend
 * for the life of an open deck.
 */
import { randomUUID } from 'node:crypto';
import type { AgentDefinition } from '../authoring/agent.js';
import { type AgentInput, toBlocks } from '../core/blocks.js';
import { ConflictError, InvalidInputError } from '../core/errors.js';
import type { Event } from '../core/events.js';
import type { ConversationSession } from '../core/sessions.js';
import { foldStatus, type RunStatus } from '../core/status.js';
import type { EventStore } from '../core/store.js';
import type { AgentEngine } from './agent-engine.js';
import { playAgentTurn, type TurnOutcome } from './agent-turn.js';
import { LiveTurns } from './live-turns.js';
import type { EventTap } from './recorder.js';
import type { RuntimeSettings } from './settings.js';

export interface RunOptions<C = unknown> {
  /** The per-run application value, passed by reference to tools, instructions and hooks. */
  context?: C;
  /** The conversation: the same id keeps the history across calls. */
  sessionId?: string;
  /** A free label recorded on every event (e.g. a tenant). */
  namespace?: string;
  /** Use this run id instead of a generated one; must be new. */
  runId?: string;
}

export interface RuntimeDeps {
  store: EventStore;
  agentEngine: AgentEngine;
  sessionFor(sessionId: string): ConversationSession;
  settings: RuntimeSettings;
  taps?: readonly EventTap[];
}

/** How long closing waits for a cancelled turn to record its own terminal event. */
const CLOSE_GRACE_MS = 2_000;

export class Runtime {
  readonly #liveTurns = new LiveTurns();

  constructor(private readonly deps: RuntimeDeps) {}

  /** Cancel every turn in flight (each ends with `run.cancelled`) and free their claims. */
  async close(): Promise<void> {
    await this.#liveTurns.cancelAll('the deck closed while the turn was running', CLOSE_GRACE_MS);
  }

  /** Play an agent turn; events are yielded live. The generator's return value carries the original error of a failed turn. */
  async *streamAgent(
    agent: AgentDefinition,
    input: AgentInput,
    options: RunOptions = {},
  ): AsyncGenerator<Event, TurnOutcome, undefined> {
    const blocks = toBlocks(input);
    const runId = await this.newRunId(options.runId);
    return yield* playAgentTurn(
      {
        store: this.deps.store,
        engine: this.deps.agentEngine,
        staleRunAfterSeconds: this.deps.settings.staleRunAfterSeconds,
        sessionFor: this.deps.sessionFor,
        taps: this.deps.taps ?? [],
        liveTurns: this.#liveTurns,
      },
      {
        agent,
        input: blocks,
        context: options.context,
        identity: {
          runId,
          sessionId: optionalId('sessionId', options.sessionId),
          namespace: options.namespace ?? null,
          origin: agent.name,
        },
      },
    );
  }

  async status(runId: string): Promise<RunStatus | null> {
    return foldStatus(await this.deps.store.read(runId));
  }

  private async newRunId(requested: string | undefined): Promise<string> {
    if (requested === undefined) return randomUUID();
    const runId = optionalId('runId', requested) as string;
    const taken = () =>
      new ConflictError(`run id '${runId}' is already used; pass a new runId or omit it`);
    if (await this.deps.store.getRun(runId)) throw taken();
    // Reserve the id atomically: two callers racing with the same id cannot both pass.
    const reservation = await this.deps.store.claim({
      key: `run-id:${runId}`,
      runId: randomUUID(),
      staleAfterMs: Number.MAX_SAFE_INTEGER,
    });
    if (!reservation.acquired) throw taken();
    return runId;
  }
}

function optionalId(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidInputError(`${name} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}
