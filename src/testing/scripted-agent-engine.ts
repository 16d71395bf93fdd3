/**
 * An `AgentEngine` that plays turns from a script instead of a model, so the runtime (its
 * envelope, claims, pauses and endings) can be tested without the agents engine. Each new
 * turn (`continuation: null`) consumes the next scripted turn and plays its steps in order;
 * a turn that stops at a safe point for a pause saves which step comes next, and a continued
 * turn goes on from there. A turn with no script left, or a continuation this engine did not
 * save, throws, so a test fails loudly. Internal: not exported from `agentdeck/testing`.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import { joinedText, TextBlock } from '../core/blocks.js';
import type { EventDraft } from '../core/events.js';
import type { AgentEngine, TurnRequest } from '../runtime/agent-engine.js';
import { sleep, summarize } from './script.js';

/** One step of a scripted turn. */
export type ScriptedTurnStep =
  /** Yield this draft as is (`tool.call.started`, `usage.reported`, `status.reported`...). */
  | { draft: EventDraft }
  /** An assistant message: one `text.delta` per chunk, then `message.completed`. */
  | { text: string | string[] }
  /**
   * A safe point: when a pause is requested, save where the turn is (`control.suspend`),
   * yield `run.paused` and end; a continued turn goes on with the next step.
   */
  | { safePoint: true }
  /** Wait this many milliseconds (the run's signal cuts it short). */
  | { waitMs: number }
  /** Wait for this promise (the run's signal cuts it short): the test decides when. */
  | { until: Promise<unknown> }
  /** Never finish on its own: wait until the run's signal aborts (a model that never answers). */
  | { hang: true }
  /** Throw this error (a string becomes an `Error`). */
  | { fail: unknown };

/** One scripted turn: its steps, then `run.completed`. */
export interface ScriptedTurn {
  steps?: ScriptedTurnStep[];
  /** The text of `run.completed`. @default the text of the turn's last `text` step, or '' */
  output?: string;
}

/** Where a paused scripted turn goes on from, as saved with `control.suspend`. */
interface SavedPlace {
  scriptedTurn: number;
  step: number;
}

export class ScriptedAgentEngine implements AgentEngine {
  /** Every turn request, in order (continued turns included). */
  readonly requests: TurnRequest[] = [];
  /** The definitions `compile()` was given. */
  readonly compiled: AgentDefinition[] = [];
  readonly #turns: ScriptedTurn[];
  #next = 0;
  #closed = false;

  constructor(turns: readonly ScriptedTurn[]) {
    this.#turns = [...turns];
  }

  /** Add turns to the end of the script. */
  push(...turns: ScriptedTurn[]): void {
    this.#turns.push(...turns);
  }

  /** Scripted turns not played yet. */
  get remaining(): number {
    return this.#turns.length - this.#next;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Throw when scripted turns were never played. */
  assertConsumed(): void {
    if (this.remaining > 0) {
      throw new Error(`ScriptedAgentEngine: ${this.remaining} scripted turn(s) left unplayed`);
    }
  }

  compile(agent: AgentDefinition): void {
    if (!this.compiled.includes(agent)) this.compiled.push(agent);
  }

  async *playTurn(request: TurnRequest): AsyncGenerator<EventDraft> {
    this.requests.push(request);
    const { scope, session } = request;
    let place: SavedPlace;
    if (request.continuation === null) {
      const scriptedTurn = this.#next;
      if (scriptedTurn >= this.#turns.length) {
        throw new Error(
          `ScriptedAgentEngine: script exhausted, no scripted turn left for agent '${request.agent.name}' (input: ${summarize(joinedText(request.input))})`,
        );
      }
      this.#next += 1;
      place = { scriptedTurn, step: 0 };
      // As the real engine does: the message is in the history as soon as the turn starts.
      await session?.addItems([{ role: 'user', content: joinedText(request.input) }]);
    } else {
      place = this.#savedPlace(request.continuation);
    }
    const turn = this.#turns[place.scriptedTurn] as ScriptedTurn;
    const steps = turn.steps ?? [];
    let messages = request.messagesBefore ?? 0;
    for (let index = place.step; index < steps.length; index += 1) {
      scope.signal.throwIfAborted();
      const step = steps[index] as ScriptedTurnStep;
      if ('draft' in step) {
        yield step.draft;
      } else if ('text' in step) {
        messages += 1;
        const messageId = `msg_${messages}`;
        const chunks = typeof step.text === 'string' ? [step.text] : step.text;
        for (const text of chunks) yield { kind: 'text.delta', payload: { messageId, text } };
        yield {
          kind: 'message.completed',
          payload: { messageId, role: 'assistant', content: [new TextBlock(chunks.join(''))] },
        };
      } else if ('safePoint' in step) {
        if (request.control.pauseRequested()) {
          const saved: SavedPlace = { scriptedTurn: place.scriptedTurn, step: index + 1 };
          await request.control.suspend(JSON.stringify(saved));
          yield { kind: 'run.paused', payload: { reason: null } };
          return;
        }
      } else if ('waitMs' in step) {
        await sleep(step.waitMs, scope.signal);
      } else if ('until' in step) {
        await abortable(step.until, scope.signal);
      } else if ('hang' in step) {
        await abortable(new Promise(() => {}), scope.signal);
      } else if ('fail' in step) {
        throw step.fail instanceof Error ? step.fail : new Error(String(step.fail));
      } else {
        throw new Error(`ScriptedAgentEngine: unknown step ${summarize(step)}`);
      }
    }
    scope.signal.throwIfAborted();
    const output = turn.output ?? lastText(steps);
    await session?.addItems([{ role: 'assistant', content: output }]);
    yield { kind: 'run.completed', payload: { output: [new TextBlock(output)], usage: null } };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #savedPlace(continuation: string): SavedPlace {
    let parsed: Partial<SavedPlace> | null = null;
    try {
      parsed = JSON.parse(continuation) as Partial<SavedPlace>;
    } catch {
      // reported below
    }
    const scriptedTurn = parsed?.scriptedTurn;
    if (
      typeof scriptedTurn !== 'number' ||
      typeof parsed?.step !== 'number' ||
      this.#turns[scriptedTurn] === undefined
    ) {
      throw new Error(
        `ScriptedAgentEngine: continuation ${summarize(continuation)} was not saved by this engine`,
      );
    }
    return { scriptedTurn, step: parsed.step };
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function lastText(steps: readonly ScriptedTurnStep[]): string {
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const step = steps[i];
    if (step && 'text' in step)
      return typeof step.text === 'string' ? step.text : step.text.join('');
  }
  return '';
}
