/**
 * The service's own tools: `get_run` (a run's status, its result once it has one, what it
 * waits for), `list_pending` (the inbox) and `answer_run` (a workflow's question, or a tool
 * call held for approval). They read the same event log and call the same `deck.pending()`
 * and `deck.answer()` as `GET /runs/{run_id}`, `GET /pending` and `POST /runs/{run_id}/answer`;
 * they reach only runs of the agents and workflows `/mcp` serves. A result is built from the
 * run's recorded events by the codec, as the catalog tools' results are.
 */
import {
  ConflictError,
  InvalidInputError,
  isBackendOutage,
  NotFoundError,
} from '../../core/errors.js';
import type { HttpDeps } from '../http/deps.js';
import { pendingToWire } from '../http/inbox.js';
import { isEnd } from '../http/run-results.js';
import { type CallLimits, STILL_RUNNING, tellFromLog, within } from './calls.js';
import {
  agentResult,
  errorResult,
  runningResult,
  type ToolResult,
  workflowResult,
} from './codec.js';
import { onlyArguments, requiredId, type ToolArguments } from './run-tools.js';

/** The agents and workflows `/mcp` serves, by name. */
export type Served = ReadonlyMap<string, 'agent' | 'workflow'>;

export async function getRun(deps: HttpDeps, served: Served, args: ToolArguments) {
  onlyArguments('get_run', args, ['run_id']);
  const runId = requiredId('get_run', args, 'run_id');
  return (await resultOfRun(deps, served, runId)) ?? unknownRun(runId);
}

export async function listPending(deps: HttpDeps, served: Served, args: ToolArguments) {
  onlyArguments('list_pending', args, []);
  const items = (await deps.deck.pending())
    .filter((item) => served.has(item.invocable))
    .map(pendingToWire);
  const text =
    items.length === 0
      ? 'Nothing waits for a person.'
      : items
          .map(
            (item) =>
              `run ${item.run_id} of '${item.invocable}' waits for ${item.reason === 'approval' ? 'an approval' : 'an answer'}: ${JSON.stringify(item.payload)}`,
          )
          .join('\n');
  return { content: [{ type: 'text' as const, text }], structuredContent: { items } };
}

export async function answerRun(
  deps: HttpDeps,
  served: Served,
  args: ToolArguments,
  request: Request,
  limits: CallLimits,
): Promise<ToolResult> {
  onlyArguments('answer_run', args, ['run_id', 'value']);
  const runId = requiredId('answer_run', args, 'run_id');
  if (!('value' in args)) {
    throw new InvalidInputError(
      "argument 'value' of tool 'answer_run' is missing: the answer to the question, or " +
        '{"approved": true} / {"approved": false, "reason": "..."} for a tool call held for approval',
    );
  }
  const run = await deps.eventLog().getRun(runId);
  if (!run || !served.has(run.origin)) return unknownRun(runId);
  if (run.status !== 'waiting_human') {
    return errorResult(
      `run ${runId} is not waiting for an answer (its status is ${run.status}); list_pending lists those that are`,
      { run_id: runId, status: run.status },
    );
  }
  const options = await deps.runContext(request);
  const log = deps.eventLog();
  const telling = limits.progress
    ? tellFromLog(log, runId, (await log.read(runId)).at(-1)?.seq ?? -1, limits.progress)
    : null;
  // The answer plays the rest of the run; what it ended with is read from the log.
  const answered = deps.deck.answer(runId, args.value, options).then(
    () => null,
    (error: unknown) => error,
  );
  const outcome = await within(answered, limits.waitMs);
  await telling?.finish();
  if (outcome === STILL_RUNNING) {
    answered.then((error) => {
      if (error !== null)
        limits.log(`[agentdeck] answer to run '${runId}' failed: ${String(error)}`);
    });
    return runningResult(runId);
  }
  if (outcome !== null) refusedAnswer(runId, outcome);
  return (await resultOfRun(deps, served, runId)) ?? unknownRun(runId);
}

/**
 * A run's result as its tool gives it, from its events: still going (`running`, `pending`),
 * or the event that ended its last segment. `null` when there is no such run here.
 */
async function resultOfRun(deps: HttpDeps, served: Served, runId: string) {
  const log = deps.eventLog();
  const run = await log.getRun(runId);
  const kind = run ? served.get(run.origin) : undefined;
  if (!run || !kind) return null;
  const origin = { origin: run.origin };
  if (run.status === 'running' || run.status === 'pending') {
    const result = runningResult(runId, origin);
    result.structuredContent.status = run.status;
    return result;
  }
  const end = (await log.read(runId)).findLast(isEnd);
  if (!end) return errorResult(`run ${runId} has no ending recorded yet; ask again`, origin);
  const result = kind === 'agent' ? agentResult(end) : workflowResult(end);
  result.structuredContent = { ...result.structuredContent, ...origin };
  return result;
}

/** Why an answer was not played: thrown on as the tool error it is, or the outage it is. */
function refusedAnswer(runId: string, error: unknown): void {
  if (isBackendOutage(error)) throw error;
  if (error instanceof NotFoundError || error instanceof ConflictError) {
    throw new ConflictError(
      `run ${runId} was not answered: ${error.message}. Another caller may have answered it; get_run says where it stands`,
    );
  }
  if (error instanceof InvalidInputError) throw error;
  // Anything else failed inside the run, which its events record: the caller reads them.
}

function unknownRun(runId: string): ToolResult {
  return errorResult(
    `no run '${runId}' of an agent or workflow this MCP server serves; run ids come from the results of its tools and list_pending`,
    { run_id: runId },
  );
}
