/**
 * The zod schemas of the HTTP bodies (WIRE.md), in their wire form (snake_case). Requests
 * are validated with them and `/openapi.json` is generated from them. A body schema carries
 * its OpenAPI component name (`.meta({ id })`): the document lists it once under
 * `components.schemas` and points to it, so a generated client names its types. Query
 * schemas have no name: the document spells them out as parameters.
 */
import { z } from 'zod';
import { idProblem, MAX_ID_BYTES } from '../../core/ids.js';
import { RUN_STATUSES } from '../../core/status.js';

const runStatus = z.enum(RUN_STATUSES).meta({ id: 'RunStatus', description: "A run's status." });

/**
 * An id the caller chooses (a session, a thread): core/ids.ts's rule, so a NUL character or an
 * id over the limit is a 422 naming the field on every backend, never a driver's error.
 */
export function callerId() {
  return z.string().superRefine((value, ctx) => {
    const problem = idProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });
}

export const ID_LIMIT = `At most ${MAX_ID_BYTES} bytes (UTF-8), no NUL character.`;

export const Detail = z
  .object({ detail: z.string() })
  .meta({ id: 'Detail', description: 'Every error body: what was wrong.' });

export const FailedRunDetail = z
  .object({ detail: z.string(), run_id: z.string().describe('The run that failed (#41).') })
  .meta({
    id: 'FailedRunDetail',
    description: 'A run that failed: `internal error`, and which run.',
  });

export const ChatBody = z
  .object({
    session_id: callerId().describe(`The conversation: the same id keeps the history. ${ID_LIMIT}`),
    message: z.string().describe('The user message.'),
  })
  .meta({ id: 'ChatBody' });

export const NativeChatBody = z
  .object({
    session_id: callerId().min(1).describe(`The conversation (non-empty). ${ID_LIMIT}`),
    message: z.string(),
  })
  .meta({ id: 'NativeChatBody' });

export const OpenApiDocument = z
  .record(z.string(), z.unknown())
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document.' });

export const StreamQuery = z.object({
  stream: z.stringbool().optional().describe('Answer with server-sent events.'),
  multitask: z
    .enum(['reject', 'enqueue', 'interrupt', 'rollback'])
    .optional()
    .describe(
      'When the session (thread) is busy: `reject` (409, the default), `enqueue` (wait for the ' +
        'run there to end, then run), `interrupt` (cancel it at its next safe point, then run), ' +
        "`rollback` (as `interrupt`, and take its unfinished turn out of the agent's session). " +
        'A wait longer than 60 s is a 409.',
    ),
});

export const WorkflowQuery = StreamQuery.extend({
  thread_id: callerId()
    .optional()
    .describe(`The thread (required for a durable workflow); default: the run id. ${ID_LIMIT}`),
});

export const InitialState = z
  .record(z.string(), z.unknown())
  .meta({ id: 'InitialState', description: "The workflow's initial state mapping." });

export const ResumeBody = z
  .object({
    value: z
      .unknown()
      .refine((v) => v !== undefined, 'required')
      .describe('The answer; `interrupt()` returns it in the re-run node.'),
  })
  .meta({ id: 'ResumeBody' });

export const ControlBody = z
  .object({ reason: z.string().nullable().optional() })
  .meta({ id: 'ControlBody' });

/** A run waiting for a person: `GET /pending`'s items, and what a chat that stopped for approval adds. */
export const PendingItem = z
  .object({
    run_id: z.string(),
    invocable: z.string().describe("The workflow's or the agent's name."),
    kind: z.enum(['workflow', 'agent']),
    reason: z
      .enum(['interrupt', 'approval'])
      .describe("`interrupt`: a workflow's question; `approval`: an agent's tool call to approve."),
    thread_id: z.string().describe("The workflow's thread; for an agent, its session (or run id)."),
    session_id: z.string().nullable(),
    payload: z
      .unknown()
      .describe(
        'What the node passed to `interrupt()`; for an approval, the held call: `{"tool", "call_id", "arguments"}`.',
      ),
    blocked: z
      .string()
      .optional()
      .describe(
        "Why a workflow's thread cannot resume: its graph changed since it paused (a node it waits at is gone, or its state does not parse). Absent when it can.",
      ),
    answer_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "The JSON Schema the answer must match: a workflow's `interrupt(payload, { answer })`, or an approval's reason (`tool({ approvalReason })`). Absent when any answer is accepted; a value that does not match is a 422 naming the field.",
      ),
  })
  .meta({ id: 'PendingItem', description: 'A run waiting for a person to answer it.' });

export const Inbox = z
  .object({ items: z.array(PendingItem).describe('Oldest first.') })
  .meta({ id: 'Inbox' });

export const ChatAnswer = z
  .object({
    output: z
      .unknown()
      .describe('The answer; null when the turn was paused, cancelled, or waits for an approval.'),
  })
  .extend(PendingItem.partial().shape)
  .meta({
    id: 'ChatAnswer',
    description:
      '`{"output"}`; when the turn stopped for a person\'s approval of a tool call, also the pending item\'s fields.',
  });

export const AnswerBody = z
  .object({
    value: z
      .unknown()
      .refine((v) => v !== undefined, 'required')
      .describe(
        'The answer: what `interrupt()` returns to a workflow; `{"approved": bool, "reason"?: str}` for a tool approval.',
      ),
  })
  .meta({ id: 'AnswerBody' });

export const Answered = z
  .object({
    run_id: z.string(),
    status: z.string().describe('The run status after the answer was played.'),
    result: z
      .unknown()
      .describe(
        'A workflow\'s final state; for an agent turn, `{"output"}`; null while the run still waits.',
      ),
    pending: PendingItem.nullable().describe('What the run waits for next, or null.'),
  })
  .meta({ id: 'Answered' });

export const Interrupt = z
  .object({
    type: z.literal('interrupt'),
    payload: z.unknown().describe('What the node asked (the value it passed to `interrupt()`).'),
    thread_id: z.string(),
  })
  .meta({ id: 'Interrupt', description: 'A thread waiting for an answer.' });

export const WorkflowState = z
  .record(z.string(), z.unknown())
  .meta({ id: 'WorkflowState', description: "A workflow's final state mapping." });

/**
 * A workflow run's JSON answer: its final state, or the interrupt object when a node paused
 * it. `anyOf`, not `oneOf`: an interrupt object is a mapping too, so it matches both.
 */
export const WorkflowAnswer = z.union([WorkflowState, Interrupt]).meta({
  id: 'WorkflowAnswer',
  description: 'The final state, or the interrupt object when a node is waiting for an answer.',
});

export const Health = z
  .object({
    status: z.literal('ok'),
    agents: z.array(z.string()),
    workflows: z.array(z.string()),
    skills: z.array(z.string()),
  })
  .meta({ id: 'Health', description: "The deck's catalog, each list sorted." });

export const Starting = z
  .object({ status: z.literal('starting') })
  .meta({ id: 'Starting', description: 'The deck is not open yet.' });

const BackendCheck = z
  .object({
    role: z.enum(['events', 'sessions', 'checkpoints']),
    backend: z.string().describe('postgres, redis, sqlite, memory, or custom'),
    ok: z.boolean(),
    ms: z.number().describe('How long it took to answer, or to fail.'),
    detail: z.string().optional().describe('What failed.'),
  })
  .meta({ id: 'BackendCheck' });

export const StoreLayout = z
  .object({
    version: z.number().int().describe('The layout in the store: its last applied migration.'),
    code_version: z.number().int().describe('The last migration this process knows.'),
    oldest_usable: z
      .number()
      .int()
      .describe('The oldest layout whose code can use the store (its newest contraction).'),
    oldest_usable_release: z
      .string()
      .describe('The release that first has `oldest_usable`: the oldest that can use the store.'),
  })
  .meta({ id: 'StoreLayout' });

export const Ready = z
  .object({
    status: z.enum(['ready', 'unavailable', 'starting']),
    detail: z.string().optional().describe('The failing backends and what failed.'),
    checks: z.array(BackendCheck),
    layout: StoreLayout.optional().describe(
      "The event store's schema layout (SQLite and Postgres stores; docs/deployment.md).",
    ),
  })
  .meta({ id: 'Ready' });

export const ControlRecorded = z
  .object({
    run_id: z.string(),
    verb: z.enum(['pause', 'cancel']),
    recorded: z.literal(true),
  })
  .meta({ id: 'ControlRecorded', description: 'A request was recorded (not a status change).' });

export const Resumed = z
  .object({
    run_id: z.string(),
    status: runStatus,
    events: z.number().int().describe('Events the continuation recorded.'),
  })
  .meta({ id: 'Resumed' });

export const Usage = z
  .object({
    requests: z.number().int().describe('Model calls.'),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    total_tokens: z.number().int(),
    usd: z
      .number()
      .nullable()
      .describe("The cost in US dollars; null when the model's price is unknown."),
  })
  .meta({ id: 'Usage' });

const runSummaryShape = {
  run_id: z.string(),
  origin: z.string().describe('The agent or workflow the caller addressed.'),
  session_id: z.string().nullable(),
  namespace: z.string().nullable(),
  status: runStatus,
  started_at: z.string(),
  updated_at: z.string(),
  last_seq: z.number().int(),
};

export const RunSummary = z.object(runSummaryShape).meta({ id: 'RunSummary' });

const QueuePlace = z
  .object({
    key: z.string().describe('The key its limits and fair turns count under.'),
    priority: z.number().int(),
    position: z
      .number()
      .int()
      .nullable()
      .describe(
        'Runs ahead of it among the waiting, by priority and age; null once a worker holds it.',
      ),
    attempts: z.number().int().describe('How many times a worker took it.'),
    enqueued_at: z.string(),
  })
  .meta({ id: 'QueuePlace', description: 'Where a queued run waits.' });

export const RunDetail = z
  .object({
    ...runSummaryShape,
    queue: QueuePlace.optional().describe(
      'Present while the run is queued (waiting, or just taken by a worker).',
    ),
    usage: Usage,
  })
  .meta({ id: 'RunDetail', description: 'A run with its usage.' });

export const RunList = z
  .object({
    runs: z.array(RunSummary),
    next_before: z
      .string()
      .nullable()
      .describe(
        'Pass as `before` for the next page; null on the last page, and in answers to `after` ' +
          '(which page with `next`).',
      ),
    next: z
      .string()
      .nullable()
      .describe(
        'Pass as `after` for the next page (an opaque cursor: each run is listed once, ' +
          'exactly, even among runs that started in the same millisecond); null on the last page.',
      ),
  })
  .meta({ id: 'RunList' });

export const RunsQuery = z.object({
  status: runStatus.optional(),
  origin: callerId().optional(),
  session_id: callerId().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: callerId().optional().describe('Only runs that started before this time (a cursor).'),
  after: z
    .string()
    .optional()
    .describe('The `next` of the previous page: only the runs listed after it (a cursor).'),
});

export const EventsQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(-1)
    .optional()
    .describe('Only events after this seq (the `Last-Event-ID` header wins).'),
  follow: z.stringbool().default(true).describe('Keep streaming until the terminal event.'),
  access_token: z
    .string()
    .optional()
    .describe(
      'A token from `POST /runs/{run_id}/events-token`, for a client that cannot send `Authorization` (a browser `EventSource`): this run only, for five minutes.',
    ),
});

export const TickBody = z
  .object({
    now: z
      .string()
      .optional()
      .describe('Wake what is due at this ISO 8601 time with an offset; default: now.'),
  })
  .meta({ id: 'TickBody' });

const TickOutcome = z
  .object({
    workflow: z.string(),
    thread_id: z.string(),
    run_id: z.string().nullable().describe('The logged run it continued, if any.'),
    status: z
      .enum(['completed', 'waiting', 'failed'])
      .describe('completed, waiting again (a question or the next timer), or failed'),
    error: z.string().nullable().describe('Why waking it failed.'),
  })
  .meta({ id: 'TickOutcome' });

export const Ticked = z
  .object({ woken: z.array(TickOutcome) })
  .meta({ id: 'Ticked', description: 'The threads that were due, and what became of each.' });

export const ScheduleView = z
  .object({
    name: z.string(),
    target: z.string().describe('The workflow or agent each fire starts.'),
    recurrence: z.string().describe('The cron expression, or `every <n>s`.'),
    timezone: z.string(),
    paused: z.boolean(),
    next_fire: z.string().nullable(),
    last_fire: z.string().nullable().describe('The last fire handled (started or skipped).'),
    last_run_id: z.string().nullable(),
    last_run_status: runStatus.nullable(),
  })
  .meta({ id: 'Schedule' });

export const ScheduleList = z
  .object({ schedules: z.array(ScheduleView) })
  .meta({ id: 'ScheduleList' });

export const Fired = z
  .object({
    schedule: z.string(),
    run_id: z.string().nullable().describe('The run started, or the run that made it skip.'),
    skipped: z
      .enum(['overlap', 'taken'])
      .nullable()
      .describe('Why no run started: the last one is still going, or another process started it.'),
  })
  .meta({ id: 'Fired' });
