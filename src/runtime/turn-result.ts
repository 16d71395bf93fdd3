/**
 * TurnResult is assembled from the run's own events (its `run.completed`), never from an
 * engine object, so a result read back from the log is identical to the live one.
 *
 * Tested in src/deck/agent-turns.test.ts (a TurnResult built from run.completed); the usage totals
 * in agent-turn.test.ts and runtime.test.ts.
 */
import { type ContentBlock, joinedText } from '../core/blocks.js';
import type { Usage, UsageReported } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import { InterruptResult } from '../core/interrupt-result.js';

export interface TurnResult<O = unknown> {
  /** The structured output (a DataBlock's data) or the joined text of the final message; `null` when the turn was cancelled or paused. */
  output: O | null;
  /** Authoritative totals for the run. */
  usage: Usage;
  runId: string;
  /** The session, if `sessionId` was given. */
  sessionId: string | null;
  /**
   * Set when the turn stopped for a person's approval of a tool call (`output` is then
   * `null`): the call waiting, `{ tool, call_id, arguments }` as its payload. Answer it with
   * `deck.answer(runId, { approved })`.
   */
  interrupt?: InterruptResult;
}

export const ZERO_USAGE: Usage = {
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  usd: null,
};

/** The output value a `run.completed` carries: a DataBlock's data, else the joined text. */
export function outputValue(blocks: readonly ContentBlock[]): unknown {
  const data = blocks.find((b) => b.type === 'data');
  return data ? data.data : joinedText(blocks);
}

/** Build the TurnResult from a run's events (its terminal event and usage reports). */
export function turnResultFrom<O>(events: readonly Event[], runId: string): TurnResult<O> {
  const sessionId = events[0]?.sessionId ?? null;
  const completed = events.find((e) => e.kind === 'run.completed');
  if (completed?.kind === 'run.completed') {
    return {
      output: outputValue(completed.payload.output) as O,
      usage: completed.payload.usage ?? sumUsage(usageReports(events)),
      runId,
      sessionId,
    };
  }
  const result: TurnResult<O> = {
    output: null,
    usage: sumUsage(usageReports(events)),
    runId,
    sessionId,
  };
  const waiting = events.at(-1);
  if (waiting?.kind === 'run.interrupted') {
    result.interrupt = new InterruptResult(
      waiting.payload.payload,
      waiting.payload.threadId,
      runId,
      waiting.payload.answerSchema,
    );
  }
  return result;
}

export function usageReports(events: readonly Event[]): UsageReported[] {
  return events.flatMap((e) => (e.kind === 'usage.reported' ? [e.payload] : []));
}

/** Totals of a run's usage reports; `usd` is null if any call's price is unknown. */
export function sumUsage(reports: readonly UsageReported[]): Usage {
  if (reports.length === 0) return { ...ZERO_USAGE };
  const sum = (pick: (u: UsageReported) => number) => reports.reduce((n, u) => n + pick(u), 0);
  return {
    requests: sum((u) => u.requests),
    inputTokens: sum((u) => u.inputTokens),
    outputTokens: sum((u) => u.outputTokens),
    totalTokens: sum((u) => u.totalTokens),
    usd: reports.every((u) => u.usd !== null)
      ? Math.round(sum((u) => u.usd ?? 0) * 1e9) / 1e9
      : null,
  };
}
