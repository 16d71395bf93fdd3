/** What the agent and workflow engine contracts share: draining a turn, and timing a stop. */
import type { EventDraft } from '../core/events.js';

/** Kinds the runtime writes itself (the envelope of a run); an engine never yields them. */
export const ENVELOPE_KINDS: ReadonlySet<string> = new Set([
  'run.started',
  'run.resumed',
  'run.failed',
  'run.cancelled',
  'run.interrupted',
  'control.requested',
  'control.observed',
]);

/** How soon a turn or segment must stop once its signal aborts. */
export const STOP_WITHIN_MS = 2_000;

/** How long a hanging turn or segment runs before the contract aborts it. */
const RUN_BEFORE_ABORT_MS = 150;

export interface Drained<R> {
  drafts: EventDraft[];
  /** The generator's return value, when it ended without throwing. */
  end?: R;
  /** What it threw, if it did. */
  error?: unknown;
}

/** Read every draft (telling `onDraft` as each comes); never throws. */
export async function drain<R>(
  drafts: AsyncIterable<EventDraft> | AsyncGenerator<EventDraft, R, undefined>,
  onDraft?: (draft: EventDraft) => void,
): Promise<Drained<R>> {
  const iterator = (drafts as AsyncIterable<EventDraft>)[Symbol.asyncIterator]();
  const seen: EventDraft[] = [];
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done) return { drafts: seen, end: step.value as R };
      seen.push(step.value);
      onDraft?.(step.value);
    }
  } catch (error) {
    return { drafts: seen, error };
  }
}

/**
 * Let `running` go for a moment (it must not end by itself), abort `controller`, and say
 * whether it ended within {@link STOP_WITHIN_MS} and how long it took.
 */
export async function stopsWithin(
  running: Promise<unknown>,
  controller: AbortController,
): Promise<{ stopped: boolean; elapsedMs: number }> {
  let ended = false;
  void running.then(() => {
    ended = true;
  });
  await new Promise((resolve) => setTimeout(resolve, RUN_BEFORE_ABORT_MS));
  if (ended) throw new Error('the scenario ended by itself before its signal aborted');
  const started = performance.now();
  controller.abort(new Error('the contract aborted the run'));
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    running.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), STOP_WITHIN_MS);
    }),
  ]);
  clearTimeout(timer);
  return { stopped, elapsedMs: Math.round(performance.now() - started) };
}
