/**
 * The workflow routes of WIRE.md: start a run (JSON final state or interrupt object, or
 * SSE: one frame per completed node, then `done`, `interrupt` or `error`), list the
 * threads waiting for an answer, and answer one (always plain JSON).
 */
import type { z } from 'zod';
import { errorMessage, errorTypeName, NotFoundError } from '../../core/errors.js';
import { isInterrupt, type WorkflowResult } from '../../core/interrupt-result.js';
import { pendingOnThread } from '../../deck/pending.js';
import { answerIdOf, replayedAnswer } from '../../runtime/answer-replay.js';
import { type HttpDeps, unknownName } from './deps.js';
import {
  detailResponse,
  failedRunResponse,
  HttpError,
  INTERNAL_ERROR,
  logRunFailure,
  runErrorResponse,
  runIdHeader,
  withRunId,
} from './errors.js';
import { idempotencyKeyOf } from './inbox.js';
import { route } from './routes.js';
import { answerOf, drainToEnd, failureLine, interruptBody } from './run-results.js';
import {
  Detail,
  FailedRunDetail,
  InitialState,
  Interrupt,
  ResumeBody,
  WorkflowAnswer,
  WorkflowQuery,
} from './schemas.js';
import { formatPythonFrame } from './sse.js';
import { type FrameRenderer, streamedRun } from './stream-buffer.js';

const errors = {
  404: { description: 'No workflow by that name.', schema: Detail },
  409: {
    description:
      'The thread is busy (running, or waiting for an answer), or still busy after `multitask` waited.',
    schema: Detail,
  },
  422: {
    description: 'A malformed body or state; a durable workflow without `thread_id`.',
    schema: Detail,
  },
  500: {
    description:
      'The run failed: `internal error` and its `run_id` (#41); why it failed is in the server ' +
      "log and the run's `run.failed` event, never in this body.",
    schema: FailedRunDetail,
    headers: ['X-Run-Id'] as const,
  },
};

export function workflowRoutes(deps: HttpDeps) {
  const { deck } = deps;
  const known = (name: string | undefined) => {
    if (name === undefined || !deck.workflows.has(name)) {
      throw unknownName('workflow', name ?? '', deck.workflows.keys());
    }
    return name;
  };
  return [
    route<z.infer<typeof InitialState>, z.infer<typeof WorkflowQuery>>({
      method: 'post',
      path: '/workflows/{name}',
      role: 'run',
      summary: 'Run a workflow from an initial state',
      description:
        'JSON: the final state, or the interrupt object when a node paused the run. With ' +
        '`?stream=true`: `data: {"type": "node_update", "node", "delta"}` per completed node ' +
        '(`{"type": "custom", "data"}` for custom writes), then `event: done` (final state), ' +
        '`event: interrupt` or `event: error`.',
      tag: 'workflows',
      query: WorkflowQuery,
      body: { schema: InitialState, description: "The workflow's initial state mapping." },
      responses: {
        200: {
          description:
            'The final state or the interrupt object: `application/json` by default, ' +
            '`text/event-stream` with `?stream=true`.',
          schema: WorkflowAnswer,
          sse:
            'Server-sent events: `data: {"type": "node_update", "node": "<name>", "delta": ' +
            '{...} | null}` per completed node, `data: {"type": "custom", "data": <value>}` per ' +
            'custom write, then one end frame: `event: done` with the final state; `event: ' +
            'interrupt` with the interrupt object; `event: error` with `{"error": ' +
            '"<ExceptionTypeName>"}`; or `event: paused` / `event: waiting` with `{"run_id", ' +
            '"status", "reason"}` when the run stopped before it finished.',
          headers: ['X-Run-Id'],
        },
        ...errors,
      },
      async handle({ params, body, query, request }) {
        const name = known(params.name);
        const options = {
          ...(query.thread_id === undefined ? {} : { sessionId: query.thread_id }),
          ...(query.multitask ? { multitask: query.multitask } : {}),
          ...(await deps.runContext(request)),
        };
        // A JSON answer reads the run for its result only: no layer hides the return value.
        const events = query.stream
          ? deck.stream(name, body, options)
          : deps.streamForResult(name, body, options);
        const first = await events.next(); // input and claim are decided here
        const runId = runIdHeader(first);
        if (query.stream) {
          return streamedRun(deps, first, events, workflowRenderer(deps.log), runId);
        }
        const end = await drainToEnd(first, events);
        if (end?.kind === 'run.completed') return Response.json(answerOf(end), { headers: runId });
        if (end?.kind === 'run.interrupted' || end?.kind === 'run.paused') {
          return Response.json(interruptBody(end), { headers: runId });
        }
        if (end?.kind === 'run.failed') {
          return failedRunResponse(end.payload, failureLine(end), deps.log, end.runId);
        }
        deps.log(
          `[agentdeck] workflow '${name}' ended without a result (${end?.kind ?? 'no events'})`,
        );
        return detailResponse(500, INTERNAL_ERROR);
      },
    }),
    route({
      method: 'get',
      path: '/workflows/{name}/pending',
      role: 'read',
      summary: "A workflow's threads waiting for an answer",
      tag: 'workflows',
      responses: {
        200: { description: 'Interrupt objects, sorted by thread id.', schema: Interrupt.array() },
        404: errors[404],
      },
      async handle({ params }) {
        const name = known(params.name);
        const items = (await deck.pending())
          .filter((item) => item.invocable === name)
          .sort((a, b) => (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
        return Response.json(
          items.map((i) => ({ type: 'interrupt', payload: i.payload, thread_id: i.threadId })),
        );
      },
    }),
    route<z.infer<typeof ResumeBody>>({
      method: 'post',
      path: '/workflows/{name}/{thread_id}/resume',
      role: 'answer',
      summary: "Answer a thread's open question",
      description:
        'Always plain JSON: the final state, or the next interrupt object. With an ' +
        '`Idempotency-Key` header, the same answer sent again once the thread has moved on gets ' +
        "the first answer's outcome; a 503 or 507 means it did not happen.",
      tag: 'workflows',
      body: { schema: ResumeBody, description: 'The answer.' },
      responses: {
        200: {
          description: 'The final state or the next interrupt object.',
          schema: WorkflowAnswer,
          headers: ['X-Run-Id'],
        },
        404: { description: 'No such workflow, or the thread is not paused.', schema: Detail },
        409: { description: 'Another caller is answering it right now.', schema: Detail },
        422: errors[422],
        500: errors[500],
      },
      async handle({ params, body, request }) {
        const name = known(params.name);
        const threadId = params.thread_id ?? '';
        const notPaused = new HttpError(404, `No paused run of '${name}' on thread '${threadId}'.`);
        const key = idempotencyKeyOf(request);
        // One lookup by the thread, not a listing of every waiting run (#29).
        const item = await pendingOnThread(deps.eventLog(), name, threadId);
        if (!item) {
          // With an idempotency key, the retry of an answer that took effect: its outcome.
          const replay = key.idempotencyKey
            ? await replayOnThread(deps, name, threadId, key.idempotencyKey)
            : null;
          if (!replay) throw notPaused;
          return withRunId(Response.json(resultBody(replay.result)), replay.runId);
        }
        let result: WorkflowResult;
        try {
          const options = { ...(await deps.runContext(request)), ...key };
          result = await deck.answer(item.runId, body.value, options);
        } catch (error) {
          // Refused before it continued: it stopped waiting meanwhile (404), or another caller
          // is answering it (409). Anything else failed inside the run: 500 naming it, logged.
          if (error instanceof NotFoundError) throw notPaused;
          return runErrorResponse(error, deps.log, item.runId);
        }
        return withRunId(Response.json(resultBody(result)), item.runId);
      },
    }),
  ];
}

/** The outcome of the answer named `key` to the latest run on the thread, or `null`. */
async function replayOnThread(deps: HttpDeps, name: string, threadId: string, key: string) {
  const store = deps.eventLog();
  const [run] = await store.listRuns({ origin: name, sessionId: threadId, limit: 1 });
  const byId = run ? null : await store.getRun(threadId);
  const runId = run?.runId ?? (byId?.origin === name ? byId.runId : null);
  if (runId === null) return null;
  const result = await replayedAnswer(store, runId, answerIdOf(null, key));
  return result === null ? null : { runId, result };
}

/** A node's state patch; `null` when it returned no update (the engine records `{}`). */
function patchOf(delta: unknown): unknown {
  const empty =
    delta === undefined ||
    (typeof delta === 'object' && delta !== null && Object.keys(delta).length === 0);
  return empty ? null : delta;
}

function resultBody(result: WorkflowResult): unknown {
  if (!isInterrupt(result)) return result;
  return { type: 'interrupt', payload: result.payload, thread_id: result.threadId };
}

/** How the workflow route shows a run: WIRE.md's frames, one per completed node, then the end. */
function workflowRenderer(log: HttpDeps['log']): FrameRenderer {
  return {
    frame(event) {
      switch (event.kind) {
        case 'node.updated':
          return formatPythonFrame({
            data: {
              type: 'node_update',
              node: event.payload.node,
              delta: patchOf(event.payload.delta),
            },
          });
        case 'custom':
          return formatPythonFrame({ data: { type: 'custom', data: event.payload.data } });
        case 'run.completed':
          return formatPythonFrame({ event: 'done', data: answerOf(event) });
        case 'run.interrupted':
        case 'run.paused':
          return formatPythonFrame({ event: 'interrupt', data: interruptBody(event) });
        case 'run.failed':
          return formatPythonFrame({ event: 'error', data: { error: event.payload.errorType } });
        case 'run.cancelled':
          return formatPythonFrame({ event: 'error', data: { error: 'RunCancelledError' } });
        default:
          return null;
      }
    },
    observe(event) {
      if (event.kind === 'run.failed') logRunFailure(event.payload, failureLine(event), log);
    },
    failed(error) {
      log(
        `[agentdeck] workflow stream failed with ${errorTypeName(error)}: ${errorMessage(error)}`,
      );
      return formatPythonFrame({ event: 'error', data: { error: errorTypeName(error) } });
    },
  };
}
