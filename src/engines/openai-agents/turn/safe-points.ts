/**
 * The safe points of an agent turn (SPEC.md "Agent run control"), where a requested pause
 * stops it without losing or repeating work, and what a paused turn saves to go on from:
 * - before a tool is dispatched: our tools carry an approval policy that asks for approval
 *   exactly when a pause is pending (`pauseBeforeDispatch`, `../compiled-agent.ts`), so the
 *   engine stops with the call undispatched and a resumable state (its own human-approval
 *   mechanism); on resume the held calls are asked again (no pause now: they run, once);
 * - before each model call (after a batch of tool outputs): on the streamed loop the engine
 *   asks `ModelCallGate` (its `callModelInputFilter`), which lets our reader catch up with the
 *   events the engine already produced (they would be dropped by an abort), then aborts the
 *   model call (made again on resume); on the plain loop the model wrapper tells the gate
 *   (`pauseBeforePlainCall`), which keeps the call's input, since that loop does not hand its
 *   state to a caller that aborts it;
 * - between streamed items (streamed loop only): after a text delta of a reply still being
 *   read, the model call is cut short (`betweenItems`).
 * A paused turn saves the engine's state, or on the plain loop the stopped call's input
 * (`saveContinuation`, `saveInputContinuation`, `restoreContinuation`). The state is
 * serialized without the run scope (see `createRunScope`), and the turn's conversation is
 * written by us, not by the engine (an engine session cannot resume a turn aborted after its
 * tools ran).
 */

import type { RunStreamEvent } from '@openai/agents-core';
import { type AgentInputItem, RunContext, RunState } from '@openai/agents-core';
import { InvalidInputError } from '../../../core/errors.js';
import type { EventDraft } from '../../../core/events.js';
import type { ApprovalAnswer } from '../../../runtime/agent-engine.js';
import type { RunScope } from '../../../runtime/run-scope.js';
import { callIdOf, type HeldCall, toolLedger } from '../compile/tool-ledger.js';
import type { CompiledAgent } from '../compiled-agent.js';
import type { TurnModelCalls } from './turn-context.js';

/** How long a pause waits for a reader that is not reading before stopping anyway. */
const CATCH_UP_MS = 10_000;

/**
 * The safe point before a model call. The engine runs ahead of whoever reads its stream and
 * drops what is unread when aborted, so the gate first waits (bounded) until the reader is
 * waiting on an empty stream, then aborts the engine's signal for the pause.
 */
export class ModelCallGate {
  readonly pause = new AbortController();
  /** What the engine is given: aborted by a cancel or by the pause, whichever comes first. */
  readonly #engine = new AbortController();
  #waiting = false;
  #read = 0;

  constructor(
    private readonly pauseRequested: () => boolean,
    private readonly cancel: AbortSignal,
  ) {
    // One listener rather than `AbortSignal.any`, whose composite signals cost every model
    // request of the turn (each links its own controller to the signal it is given).
    if (cancel.aborted) this.#engine.abort(cancel.reason);
    else cancel.addEventListener('abort', () => this.#engine.abort(cancel.reason), { once: true });
  }

  /** The engine's signal: a cancel (the run scope's signal) or the pause. */
  get signal(): AbortSignal {
    return this.#engine.signal;
  }

  /**
   * The safe point between streamed items: after our reader recorded a text delta, while the
   * model is still writing that reply (`calls.streaming`, so no tool of the turn is running),
   * a pause stops the model call at once. The unfinished message is left without
   * `message.completed`; on resume the model is asked again and answers under a new message id.
   */
  betweenItems(event: RunStreamEvent, calls: TurnModelCalls): void {
    if (
      event.type === 'raw_model_stream_event' &&
      event.data.type === 'output_text_delta' &&
      calls.streaming > 0 &&
      this.pauseRequested()
    ) {
      this.#stopForPause('paused between streamed items');
    }
  }

  /** The engine's `callModelInputFilter`: passes the input through, or stops for a pause. */
  readonly filter = Object.assign(
    async <T>({ modelData }: { modelData: T }): Promise<T> => {
      if (this.pauseRequested()) {
        await this.#caughtUp();
        this.#stopForPause('paused before a model call');
      }
      return modelData;
    },
    // The filter returns the input untouched, so the engine need not copy it for us.
    { preserveInputIdentity: true },
  );

  /** The input of the model call a pause stopped on the plain loop: where to continue from. */
  pausedInput: AgentInputItem[] | null = null;

  /**
   * The safe point before a model call on the plain (non-streamed) loop, told by the model
   * itself (`TurnModelCalls.beforeCall`): that loop's events are queued by us and never
   * dropped, so a pause needs no catch-up; it keeps the call's input instead, since that loop
   * does not hand its state to a caller that aborts it, and stops the call by throwing.
   */
  pauseBeforePlainCall(input: string | AgentInputItem[]): void {
    if (!this.pauseRequested()) return;
    this.pausedInput = typeof input === 'string' ? asItems(input) : [...input];
    throw this.#stopForPause('paused before a model call');
  }

  /** Stop the engine for a pause (the turn then saves where to go on from); the reason given. */
  #stopForPause(why: string): Error {
    const reason = new Error(why);
    this.pause.abort(reason);
    this.#engine.abort(reason);
    return reason;
  }

  /**
   * Read the engine's stream, telling the gate when the reader waits. A plain iterator, not an
   * async generator: every event of the engine (two per streamed token) passes here, and a
   * generator's own round of promises per event showed in the profile of 1,000 live streams.
   * Like a generator's, its `return()` (the loop stopped reading) ends it without cancelling
   * the engine's stream, and it ends after a throw.
   */
  read<E>(stream: AsyncIterable<E>): AsyncIterableIterator<E> {
    const iterator = stream[Symbol.asyncIterator]();
    const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
    let finished = false;
    const next = async (): Promise<IteratorResult<E, undefined>> => {
      if (finished) return done;
      this.#waiting = true;
      let step: IteratorResult<E>;
      try {
        step = await iterator.next();
      } catch (error) {
        finished = true;
        throw error;
      }
      this.#waiting = false;
      this.#read += 1;
      if (!step.done) return step;
      finished = true;
      return done;
    };
    return {
      next,
      return: async () => {
        finished = true;
        return done;
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  async #caughtUp(): Promise<void> {
    const until = Date.now() + CATCH_UP_MS;
    while (Date.now() < until && !this.cancel.aborted) {
      const read = this.#read;
      // A queued event reaches a waiting reader within a turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#waiting && this.#read === read) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

/**
 * What a paused turn saves: the engine's state (paused before a tool, or on the streamed
 * loop), or the input of the model call it stopped before (on the plain loop), and how
 * much of its input was history.
 */
type Continuation = {
  engine: 'openai-agents';
  /** Items of the run's input (the turn's message): the rest is the turn's output. */
  inputLength: number;
  /**
   * The history sent before the run's input (`turn-context.ts` rule 5). Absent in a
   * continuation saved before the history was kept apart: its input holds the history.
   */
  history?: readonly AgentInputItem[];
  /**
   * The held calls a person must approve, in order; the first is the one asked. Absent
   * when the turn stopped for a pause only.
   */
  awaiting?: readonly HeldCall[];
  /** What the turn's caller added to the agent's instructions (`compile/caller-instructions.ts`). */
  instructions?: string;
} & ({ state: string } | { input: AgentInputItem[] });

export function saveContinuation(
  state: { toString(): string },
  inputLength: number,
  history: readonly AgentInputItem[],
  awaiting: readonly HeldCall[] = [],
  instructions?: string,
): string {
  const continuation: Continuation = {
    engine: 'openai-agents',
    state: state.toString(),
    inputLength,
    history,
    ...(awaiting.length > 0 ? { awaiting } : {}),
    ...(instructions ? { instructions } : {}),
  };
  return JSON.stringify(continuation);
}

/** A turn paused before a model call on the plain loop: the call's input is all it needs. */
export function saveInputContinuation(
  input: AgentInputItem[],
  inputLength: number,
  history: readonly AgentInputItem[],
  instructions?: string,
): string {
  const continuation: Continuation = {
    engine: 'openai-agents',
    input,
    inputLength,
    history,
    ...(instructions ? { instructions } : {}),
  };
  return JSON.stringify(continuation);
}

/**
 * What to continue a paused turn from: the engine state bound to this run's scope (a call
 * held at a pause is asked again, and runs now, once, unless its policy now wants a person);
 * or the input of the model call it stopped before. A turn waiting for a person continues with `answer` applied to the first call it
 * waits for; the others still wait (marked in the run's ledger, so they are asked again).
 */
export async function restoreContinuation(
  agent: CompiledAgent,
  saved: string,
  scope: RunScope,
  answer?: ApprovalAnswer,
): Promise<{
  state: RunState<RunScope | undefined, CompiledAgent> | AgentInputItem[];
  inputLength: number;
  history: readonly AgentInputItem[];
  /** The `tool.call.completed` of the call a person rejected, for the turn to record first. */
  rejected?: EventDraft | null;
  /** What the turn's caller added to the agent's instructions. */
  instructions?: string | undefined;
}> {
  let continuation: Continuation;
  try {
    continuation = JSON.parse(saved) as Continuation;
  } catch (error) {
    throw new InvalidInputError(`the saved continuation of run '${scope.runId}' is not JSON`, {
      cause: error,
    });
  }
  if (continuation.engine !== 'openai-agents') {
    throw new InvalidInputError(
      `the saved continuation of run '${scope.runId}' was not written by the openai-agents engine`,
    );
  }
  if ('input' in continuation && Array.isArray(continuation.input)) {
    const { input, inputLength, history = [], instructions } = continuation;
    return { state: input, inputLength, history, instructions };
  }
  if (!('state' in continuation) || typeof continuation.state !== 'string') {
    throw new InvalidInputError(
      `the saved continuation of run '${scope.runId}' holds neither an engine state nor an input`,
    );
  }
  const state = await restoreState(agent, continuation.state, scope);
  const awaiting = continuation.awaiting ?? [];
  const asked = awaiting[0];
  if (asked && !answer) {
    throw new InvalidInputError(
      `run '${scope.runId}' waits for a person to approve tool '${asked.tool}'; answer it with { approved: true } or { approved: false, reason }`,
    );
  }
  const ledger = toolLedger(scope);
  let rejected: EventDraft | null = null;
  for (const call of awaiting.slice(1)) ledger.awaiting.set(call.call_id, call);
  for (const held of state.getInterruptions()) {
    const callId = callIdOf(held);
    if (asked && callId === asked.call_id && answer) {
      if (answer.approved) state.approve(held);
      else {
        const message = rejectionText(asked.tool, answer.reason ?? null);
        state.reject(held, { message });
        rejected = {
          kind: 'tool.call.completed',
          payload: { callId, name: asked.tool, output: null, error: message },
        };
        // Recorded here, once, on either loop (the plain loop's tool hook never sees it).
        ledger.recorded.add(callId);
      }
    } else if (!isFunctionCall(held)) {
      // A hosted tool's own approval (not ours to ask): a resume approves it, as before.
      state.approve(held);
    }
    // A function call held only for a pause is left undecided: the engine asks its gate again,
    // so the tool's policy as it is now decides (it may now need a person), never a blind yes.
  }
  return {
    state,
    inputLength: continuation.inputLength,
    history: continuation.history ?? [],
    rejected,
    instructions: continuation.instructions,
  };
}

/**
 * The engine state of a paused turn, bound to the agent as this deck defines it. A deploy may
 * have taken away a tool whose call the turn holds (waiting for a person, or stopped at a
 * pause before it ran): the engine cannot run that call, so the resume is refused with an
 * error naming the tool (the run ends `failed` with it; the call never runs and the session is
 * free; the engine's own "Tool x not found" said neither which run nor why). A tool that is still there with other arguments is no
 * refusal: the held call runs, and arguments that no longer parse go back to the model as the
 * tool's failure, as any bad arguments do. Calls that already ran are history, never looked up.
 */
async function restoreState(
  agent: CompiledAgent,
  saved: string,
  scope: RunScope,
): Promise<RunState<RunScope | undefined, CompiledAgent>> {
  try {
    return await RunState.fromStringWithContext(
      agent,
      saved,
      new RunContext<RunScope | undefined>(scope),
    );
  } catch (error) {
    // @openai/agents-core's words for a held call whose tool it cannot find (runState.ts).
    const missing = /^Tool (.+) not found$/.exec(error instanceof Error ? error.message : '');
    if (!missing) throw error;
    throw new InvalidInputError(
      `run '${scope.runId}' holds a call of tool '${missing[1]}', which agent '${agent.name}' no longer has (changed by a deploy?); a run paused at that call cannot resume`,
      { cause: error },
    );
  }
}

function isFunctionCall(held: { rawItem?: unknown }): boolean {
  return (held.rawItem as { type?: unknown } | undefined)?.type === 'function_call';
}

/** What the model is told of a call a person rejected (and what `tool.call.completed` records). */
export function rejectionText(tool: string, reason: string | null): string {
  const why = reason === null || reason.trim() === '' ? '' : `: ${reason}`;
  return `A person rejected this call of tool '${tool}'; it did not run${why}`;
}

/** The engine's input items for a turn's message (the engine takes a bare string as one user message). */
export function asItems(input: string | AgentInputItem[]): AgentInputItem[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
}
