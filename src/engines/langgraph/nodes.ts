/**
 * What a graph node calls: `interrupt()` to ask a person, `sleepUntil()` to wait for a
 * time, and `withContext()` to receive the run's context. All three sit on LangGraph's own
 * mechanisms: a timer is an interrupt whose value the checkpointers index, and the context
 * travels in LangGraph's run `context` (by reference, never checkpointed).
 */
import { interrupt as graphInterrupt } from '@langchain/langgraph';
import {
  asRunScope,
  type Context,
  type ContextClass,
  contextFor,
} from '../../authoring/context.js';
import { ContextTypeError } from '../../core/errors.js';
import { parseInstant } from '../../core/instants.js';
import { SLEEP_UNTIL_KEY, type SleepRequest } from '../../core/wakeups.js';

/**
 * Pause the run until a person answers. The first time, the run stops here and returns an
 * InterruptResult carrying `payload`; once `deck.answer(runId, value)` continues it, the
 * node re-runs from its start and this call returns `value`. Code before it must be safe
 * to run twice.
 *
 * @example
 * const approve = (state: { amount: number }) => {
 *   const ok = interrupt<boolean>({ question: `Approve ${state.amount}?` });
 *   return { approved: ok };
 * };
 */
export function interrupt<R = unknown, P = unknown>(payload: P): R {
  const answer = graphInterrupt<P, unknown>(payload);
  return (isNullAnswer(answer) ? null : answer) as R;
}

/** LangGraph refuses `Command({ resume: null })`, so a null answer travels as this marker. */
const NULL_ANSWER = { 'agentdeck:null': true } as const;

/** The resume value to send LangGraph for an answer (`null` and `undefined` become a marker). */
export function resumeValue(answer: unknown): unknown {
  return answer === null || answer === undefined ? NULL_ANSWER : answer;
}

function isNullAnswer(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<string, unknown>)['agentdeck:null'] === true
  );
}

/**
 * Pause a durable workflow's thread until `when` (a Date, or an ISO 8601 string with an
 * offset). `deck.tick()` resumes threads whose time has come; the node re-runs from its
 * start and this call returns. Code before it must be safe to run twice.
 *
 * @example
 * const remind = (state: { due: string }) => {
 *   sleepUntil(state.due);
 *   return { reminded: true };
 * };
 */
export function sleepUntil(when: Date | string): void {
  const at = parseInstant(when, 'sleepUntil(when)');
  const request: SleepRequest = { [SLEEP_UNTIL_KEY]: at.toISOString() };
  graphInterrupt(request);
}

/** The LangGraph config a node receives (the parts read here). */
interface NodeConfig {
  context?: unknown;
  metadata?: Record<string, unknown>;
}

/**
 * A graph node that receives the run's context after its state. Inside a Deck run the
 * context is the value passed as `context` (by reference; `null` when none was passed, as
 * on `tick()`); a headless `workflow.run()` has none, and the node fails with a TypeError.
 *
 * @example
 * const plan = withContext(Calendar, async (state: { day: string }, ctx) => ({
 *   slot: ctx.data.firstFree(state.day),
 * }));
 */
export function withContext<T, S, U>(
  requirement: ContextClass<T> | 'any',
  node: (state: S, ctx: Context<T>) => U,
): (state: S, config?: NodeConfig) => U {
  return (state: S, config?: NodeConfig): U => {
    const scope = asRunScope(config?.context);
    const name = config?.metadata?.langgraph_node;
    const where = typeof name === 'string' ? `graph node '${name}'` : 'a graph node';
    if (!scope) {
      throw new TypeError(
        `missing argument 'ctx': ${where} ` +
          'needs a context, but the workflow ran headless (Workflow.run/resume pass none); ' +
          'run it through a Deck to pass one',
      );
    }
    // A value of the wrong class is refused here, where the node would misuse it; `null`
    // (no context passed, as on tick) is not an error: the node fails where it uses it.
    if (requirement !== 'any' && scope.data !== null && !(scope.data instanceof requirement)) {
      throw new ContextTypeError(
        `${where} requires a context of type ${requirement.name}, but the run was given ` +
          `${describeValue(scope.data)}; pass an instance of ${requirement.name} as \`context\``,
      );
    }
    return node(state, contextFor<T>(scope));
  };
}

function describeValue(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    return `an instance of ${value.constructor?.name ?? 'Object'}`;
  }
  return `a ${typeof value}`;
}
