/**
 * What a graph node calls: `interrupt()` to ask a person, `sleepUntil()` to wait for a
 * time, and `withContext()` to receive the run's context. All three sit on LangGraph's own
 * mechanisms: a timer is an interrupt whose value the checkpointers index, and the context
 * travels in LangGraph's run `context` (by reference, never checkpointed).
 */
import { interrupt as graphInterrupt } from '@langchain/langgraph';
import {
  type Context,
  type ContextRequirement,
  declareContext,
  isContextRequirement,
} from '../../authoring/context.js';
import { type AnswerShape, toAnswerSchema } from '../../core/answer-schema.js';
import { checkContextValue } from '../../core/context-verdicts.js';
import { parseInstant } from '../../core/instants.js';
import { SLEEP_UNTIL_KEY, type SleepRequest } from '../../core/wakeups.js';
import { asRunScope, contextFor } from '../../runtime/run-scope.js';
import { askedWithSchema } from './asked.js';

/** What `interrupt()` may say of the answer it waits for. */
export interface InterruptOptions {
  /**
   * The shape the answer must have: a zod schema or a JSON Schema object. It is recorded as
   * JSON Schema on `run.interrupted` (`answer_schema`), the inbox and the playground build a
   * form from it, and an answer that does not match is refused (InvalidInputError, HTTP 422,
   * naming the field) while the run keeps waiting.
   * @default none: any JSON value is accepted
   */
  answer?: AnswerShape;
}

/**
 * Pause the run until a person answers. The first time, the run stops here and returns an
 * InterruptResult carrying `payload`; once `deck.answer(runId, value)` continues it, the
 * node re-runs from its start and this call returns `value`. Code before it must be safe
 * to run twice. With `{ answer: schema }`, only an answer matching the schema continues it.
 *
 * @example
 * const approve = (state: { amount: number }) => {
 *   const { ok } = interrupt<{ ok: boolean }>(
 *     { question: `Approve ${state.amount}?` },
 *     { answer: z.object({ ok: z.boolean() }) },
 *   );
 *   return { approved: ok };
 * };
 */
export function interrupt<R = unknown, P = unknown>(payload: P, options?: InterruptOptions): R {
  const value =
    options?.answer === undefined
      ? payload
      : askedWithSchema(payload, toAnswerSchema(options.answer, 'interrupt(payload, { answer })'));
  const answer = graphInterrupt<unknown, unknown>(value);
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
 * A graph node that receives the run's context after its state. `requirement` is what it
 * needs (a class, `Context.any`, `oneOf()`, `protocol()`...): `build()` rules on it against
 * the deck's declared type, and each call checks the value it is given. Inside a Deck run
 * the context is the value passed as `context` (by reference; `null` when none was passed,
 * as on `tick()`: the node fails where it first uses it); a headless `workflow.run()` has
 * none, and the node fails with a TypeError.
 *
 * @example
 * const plan = withContext(Calendar, async (state: { day: string }, ctx) => ({
 *   slot: ctx.data.firstFree(state.day),
 * }));
 */
export function withContext<T, S, U>(
  requirement: ContextRequirement<T>,
  node: (state: S, ctx: Context<T>) => U,
): (state: S, config?: NodeConfig) => U {
  if (!isContextRequirement(requirement)) {
    throw new TypeError(
      'withContext(requirement, node): requirement must be a class, Context.any, oneOf(), protocol() or typeParameter()',
    );
  }
  const adapter = (state: S, config?: NodeConfig): U => {
    const scope = asRunScope(config?.context);
    const name = config?.metadata?.langgraph_node;
    const node_ = typeof name === 'string' ? `node '${name}'` : 'a node';
    const where = scope ? `${node_} of workflow '${scope.invocable}'` : `graph ${node_}`;
    if (!scope) {
      throw new TypeError(
        `missing argument 'ctx': ${where} ` +
          'needs a context, but the workflow ran headless (Workflow.run/resume pass none); ' +
          'run it through a Deck to pass one',
      );
    }
    checkContextValue(requirement, scope.data, where);
    return node(state, contextFor<T>(scope));
  };
  return declareContext(adapter, requirement);
}
