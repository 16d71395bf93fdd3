/**
 * A turn on the engine's streamed loop: the runner yields its events as they happen (raw
 * model stream events, then run items), read by the turn as the engine produces them and
 * mapped to drafts (`TurnTranscript.map`). The model streams (a live turn), or answers whole
 * replies replayed as the end of a stream (a turn nobody reads live that the plain loop does
 * not fit, `whole-replies.ts`). Its safe points: the engine's model input filter before each
 * model call, and between streamed items (`safe-points.ts`).
 */
import { RunState } from '@openai/agents-core';
import type { EventDraft } from '../../../core/events.js';
import { SETTLE_MS, settleWithin } from './settle.js';
import type { TurnModelCalls } from './turn-context.js';
import { withTurnCalls } from './turn-context.js';
import type { TurnEnd, TurnLoop, TurnPlay } from './turn-loop.js';
import { modelCallMark } from './whole-replies.js';

export class StreamedLoop implements TurnLoop {
  readonly name = 'streamed';

  /** `wholeReplies`: the model answers in one piece, replayed as a stream. */
  constructor(readonly wholeReplies: boolean) {}

  async *play(turn: TurnPlay): AsyncGenerator<EventDraft, TurnEnd> {
    const { runner, agent, input, scope, gate, transcript } = turn;
    const calls: TurnModelCalls = {
      whole: this.wholeReplies,
      streaming: 0,
      history: turn.history,
      ...(turn.modelCalls
        ? { modelCalls: turn.modelCalls, unreadModelCalls: new Set<EventDraft>() }
        : {}),
    };
    const unread = calls.unreadModelCalls;
    const result = await withTurnCalls(calls, () =>
      runner.run(agent, input, {
        stream: true,
        ...(input instanceof RunState ? {} : { context: scope }),
        signal: gate.signal,
        maxTurns: turn.maxTurns,
        callModelInputFilter: gate.filter,
      }),
    );
    const settled = result.completed.then(
      () => undefined,
      () => undefined,
    );
    try {
      // The stream can end without throwing on abort; `completed` carries the error, if any.
      let failure: { error: unknown } | null = null;
      try {
        for await (const event of gate.read(result)) {
          const mark = event.type === 'raw_model_stream_event' ? modelCallMark(event.data) : null;
          if (mark) {
            unread?.delete(mark);
            yield mark;
            continue;
          }
          yield* transcript.map(event);
          gate.betweenItems(event, calls);
        }
      } catch (error) {
        failure = { error };
      }
      // What the engine dropped of its model calls' records (a failed or aborted stream), once
      // it let go of the model's stream (`completed`: its loop is over).
      await result.completed.catch(() => undefined);
      if (unread && unread.size > 0) yield* takeAll(unread);
      if (failure) throw failure.error;
      await result.completed;
      if (result.error) throw result.error;
      scope.signal.throwIfAborted();
    } finally {
      // Stopped early (cancel, consumer gone): let the engine finish what it is doing (it was
      // aborted) before the caller frees the session, bounded so a stuck tool cannot hold it.
      await settleWithin(settled, SETTLE_MS);
    }
    return result;
  }
}

/** The drafts in `unread`, in the order they were made, and forget them. */
function takeAll(unread: Set<EventDraft>): EventDraft[] {
  const drafts = [...unread];
  unread.clear();
  return drafts;
}
