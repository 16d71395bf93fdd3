/**
 * What a workflow run returns when a node paused it for a person's answer (SPEC.md
 * "InterruptResult"). A class, so `result instanceof InterruptResult` tells it apart from a
 * final state mapping whatever that state contains.
 */
export class InterruptResult<P = unknown> {
  readonly type = 'interrupt' as const;

  constructor(
    /** The value the node passed to `interrupt()`: the question for the person. */
    readonly payload: P,
    /** The thread to answer (the `sessionId`, or the run id when none was given). */
    readonly threadId: string,
    /** The paused run: `deck.answer(runId, value)` continues it; `null` in a headless run. */
    readonly runId: string | null,
    /**
     * The JSON Schema the answer must match (`interrupt(payload, { answer })`, #41); absent
     * when any answer is accepted.
     */
    readonly answerSchema?: Record<string, unknown>,
  ) {}
}

/** A workflow's final state mapping, or the interrupt that paused it. */
export type WorkflowResult<S extends Record<string, unknown> = Record<string, unknown>> =
  | S
  | InterruptResult;

export function isInterrupt(value: unknown): value is InterruptResult {
  return value instanceof InterruptResult;
}
