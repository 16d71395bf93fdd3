/**
 * The catalog's tools: a call of an agent's tool plays one turn (`{message, session_id?}`), a
 * call of a workflow's tool runs it from the given fields (`thread_id` beside them), through
 * the same deck calls as the HTTP routes, so the run is recorded as any other run. A call
 * without a session or thread gets a new one, which its result names, so the next call can
 * continue it. The arguments are checked here, each problem naming the argument; a workflow's
 * state is checked by the deck, whose message names the field.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../../core/errors.js';
import type { EventOf } from '../../core/events.js';
import { idProblem } from '../../core/ids.js';
import type { HttpDeps } from '../http/deps.js';
import type { EndEvent } from '../http/run-results.js';
import {
  type CallLimits,
  type Followed,
  followRun,
  OutageFailedRun,
  STILL_RUNNING,
} from './calls.js';
import {
  agentResult,
  errorResult,
  OUTAGE_ERROR_TYPES,
  runningResult,
  type ToolResult,
  workflowResult,
} from './codec.js';
import type { CatalogTool } from './tools.js';

/** One call's arguments, as the client sent them. */
export type ToolArguments = Record<string, unknown>;

export async function callAgent(
  deps: HttpDeps,
  tool: CatalogTool,
  args: ToolArguments,
  request: Request,
  limits: CallLimits,
): Promise<ToolResult> {
  onlyArguments(tool.name, args, ['message', 'session_id']);
  const message = args.message;
  if (typeof message !== 'string' || message.trim() === '') {
    throw new InvalidInputError(
      `argument 'message' of tool '${tool.name}' must be a non-empty string: what to say to the agent`,
    );
  }
  const sessionId = optionalId(tool.name, args, 'session_id') ?? randomUUID();
  const missing = deps.missingModel(tool.name);
  if (missing) return errorResult(missing);
  const options = { sessionId, ...(await deps.runContext(request)) };
  // Nobody reads the turn live: the model may answer in whole replies (as the JSON route).
  const events = deps.streamForResult(tool.name, message, options);
  return resultOf(tool.name, await followRun(events, limits), agentResult, () => ({
    session_id: sessionId,
  }));
}

export async function callWorkflow(
  deps: HttpDeps,
  tool: CatalogTool,
  args: ToolArguments,
  request: Request,
  limits: CallLimits,
): Promise<ToolResult> {
  const { thread_id: _thread, ...state } = args;
  const given = optionalId(tool.name, args, 'thread_id');
  // A durable workflow's run needs a thread; a client that gave none gets a new one.
  const threadId = given ?? (tool.durable ? randomUUID() : undefined);
  const options = {
    ...(threadId === undefined ? {} : { sessionId: threadId }),
    ...(await deps.runContext(request)),
  };
  const events = deps.deck.stream(tool.name, state, options);
  return resultOf(tool.name, await followRun(events, limits), workflowResult, (runId) => ({
    thread_id: threadId ?? runId,
  }));
}

/**
 * A followed run's tool result: `encode` of its end; `running`, with `where` (its session or
 * thread), when the wait ended first. A run that failed because a backend was down is thrown
 * (server.ts answers it as the refusal it is).
 */
function resultOf(
  name: string,
  { runId, outcome }: Followed,
  encode: (end: EndEvent) => ToolResult,
  where: (runId: string) => Record<string, unknown>,
): ToolResult {
  if (runId === null || outcome === null) {
    return errorResult(`'${name}' ended without a result; see the server log`);
  }
  if (outcome === STILL_RUNNING) return runningResult(runId, where(runId));
  if (isOutage(outcome)) throw new OutageFailedRun(outcome);
  return encode(outcome);
}

/** Refuse arguments a tool does not take, naming them and the ones it does. */
export function onlyArguments(tool: string, args: ToolArguments, known: readonly string[]): void {
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  throw new InvalidInputError(
    `tool '${tool}' takes no argument ${unknown.map((k) => `'${k}'`).join(', ')}; its arguments are ${
      known.map((k) => `'${k}'`).join(', ') || 'none'
    }`,
  );
}

/** An optional id argument, checked: `undefined` when absent. */
export function optionalId(tool: string, args: ToolArguments, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  return requiredId(tool, args, name);
}

/** A required id argument, checked. */
export function requiredId(tool: string, args: ToolArguments, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value === '') {
    throw new InvalidInputError(
      `argument '${name}' of tool '${tool}' must be a non-empty string${value === undefined ? ', and it is missing' : `, got ${JSON.stringify(value)}`}`,
    );
  }
  const problem = idProblem(value);
  if (problem !== null)
    throw new InvalidInputError(`argument '${name}' of tool '${tool}' ${problem}`);
  return value;
}

/** A run that failed because a backend was down: the call answers as a refused request. */
function isOutage(end: EndEvent): end is EventOf<'run.failed'> {
  return end.kind === 'run.failed' && OUTAGE_ERROR_TYPES.has(end.payload.errorType);
}
