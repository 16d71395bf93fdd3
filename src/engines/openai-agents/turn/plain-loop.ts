/**
 * A turn nobody reads live, played on the engine's plain (non-streamed) loop. The streamed
 * loop costs about a tenth of a turn's CPU over HTTP even when the model answers whole
 * replies: a web stream of engine events, and a schema parse of every response. Here the
 * events come from where the plain loop shows them, in the order the streamed loop yields
 * them: each whole response of the turn's own model calls (its text, usage, messages and
 * tool calls, see `TurnTranscript.response`) and the runner's tool hook (each output),
 * both told through the turn's model calls (`turn-context.ts` rules 4 and 5). It installs
 * no model input filter, which would cost the engine input bookkeeping on every call: the
 * safe point before a model call is told by the model wrapper too.
 *
 * Only agents whose tools are all the deck's own, with no MCP server, take this loop
 * (`loop-choice.ts`).
 */
import type { EventDraft } from '../../../core/events.js';
import { SETTLE_MS, settleWithin } from './settle.js';
import { type TurnModelCalls, withTurnCalls } from './turn-context.js';
import type { TurnEnd, TurnLoop, TurnPlay } from './turn-loop.js';

export class PlainLoop implements TurnLoop {
  readonly name = 'plain';
  readonly wholeReplies = true;

  async *play(turn: TurnPlay): AsyncGenerator<EventDraft, TurnEnd | null> {
    const { transcript, scope, gate } = turn;
    const queue = new DraftQueue();
    const outputs = new ToolOutputs();
    const calls: TurnModelCalls = {
      whole: true,
      streaming: 0,
      history: turn.history,
      ...(turn.modelCalls
        ? { modelCalls: turn.modelCalls, onModelCall: (draft) => queue.push([draft]) }
        : {}),
      beforeCall: (request) => {
        queue.push(outputs.release()); // the previous call's tools are done: their outputs go first
        gate.pauseBeforePlainCall(request.input);
      },
      onResponse: (response, completed) => {
        const drafts = transcript.response(response, completed);
        outputs.expect(drafts);
        queue.push(drafts);
      },
      onToolEnd: (context, toolCall, output) => {
        if (context.context !== scope) return; // a run nested in one of the turn's tools
        outputs.done(toolCall.callId ?? '', transcript.toolCompleted(toolCall, output));
      },
    };
    const running = withTurnCalls(calls, () =>
      turn.runner.run(turn.agent, turn.input, {
        ...(Array.isArray(turn.input) || typeof turn.input === 'string' ? { context: scope } : {}),
        signal: gate.signal,
        maxTurns: turn.maxTurns,
      }),
    );
    const outcome = running.then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: null, error }),
    );
    let settled = false;
    void outcome.then(({ result }) => {
      settled = true;
      // A finished (or tool-paused) run's last outputs; a failed run's are not the engine's word.
      if (result) queue.push(outputs.release());
      queue.end();
    });
    try {
      // Read here rather than through a generator of the queue's: one layer less per event.
      for (let batch = await queue.take(); batch !== null; batch = await queue.take()) {
        for (const draft of batch) yield draft;
      }
    } finally {
      // Stopped early (cancel, consumer gone): let the engine wind down first, as on the streamed loop.
      if (!settled) await settleWithin(outcome, SETTLE_MS);
    }
    const { result, error } = await outcome;
    if (result) return result;
    scope.signal.throwIfAborted(); // a cancel wins over a pause it raced
    if (gate.pause.signal.aborted && gate.pausedInput) return null;
    throw error;
  }
}

/**
 * The outputs of one model response's tool calls, told as the streamed loop tells them:
 * all at once after the batch, in the order of the calls (the hook tells each as it ends),
 * and only once the engine goes on (its next model call, or the end of the run): the hook
 * also fires for a call whose error fails the run, or a sibling it then cancels, which the
 * streamed loop never shows.
 */
class ToolOutputs {
  #order: string[] = [];
  #done = new Map<string, EventDraft>();

  /** A response's drafts: its tool calls, in order, are the next batch. */
  expect(drafts: readonly EventDraft[]): void {
    this.#order = drafts.flatMap((d) => (d.kind === 'tool.call.started' ? [d.payload.callId] : []));
  }

  done(callId: string, draft: EventDraft): void {
    this.#done.set(callId, draft);
  }

  /** The batch's outputs in call order (then any the response did not list), and forget them. */
  release(): EventDraft[] {
    const drafts = this.#order.flatMap((id) => {
      const draft = this.#done.get(id);
      this.#done.delete(id);
      return draft ? [draft] : [];
    });
    drafts.push(...this.#done.values());
    this.#done.clear();
    this.#order = [];
    return drafts;
  }
}

/** Drafts handed over from the engine's callbacks to the turn's reader, in order. */
class DraftQueue {
  #drafts: EventDraft[] = [];
  #ended = false;
  #wake: (() => void) | null = null;

  push(drafts: EventDraft[]): void {
    if (drafts.length === 0) return;
    this.#drafts.push(...drafts);
    this.#signal();
  }

  end(): void {
    this.#ended = true;
    this.#signal();
  }

  /** The drafts queued since the last call (waiting for one), or `null` once ended and empty. */
  async take(): Promise<EventDraft[] | null> {
    while (this.#drafts.length === 0) {
      if (this.#ended) return null;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    const batch = this.#drafts;
    this.#drafts = [];
    return batch;
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
