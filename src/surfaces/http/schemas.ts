/**
 * The zod schemas of the HTTP bodies (WIRE.md), in their wire form (snake_case). Requests
 * are validated with them and `/openapi.json` is generated from them.
 */
import { z } from 'zod';

const runStatus = z.enum([
  'pending',
  'running',
  'paused',
  'waiting_human',
  'completed',
  'failed',
  'cancelled',
]);

export const Detail = z.object({ detail: z.string() });

export const ChatBody = z.object({
  session_id: z.string().describe('The conversation: the same id keeps the history.'),
  message: z.string().describe('The user message.'),
});

export const NativeChatBody = z.object({
  session_id: z.string().min(1).describe('The conversation (non-empty).'),
  message: z.string(),
});

export const StreamQuery = z.object({
  stream: z.stringbool().optional().describe('Answer with server-sent events.'),
});

export const WorkflowQuery = StreamQuery.extend({
  thread_id: z
    .string()
    .optional()
    .describe('The thread (required for a durable workflow); default: the run id.'),
});

export const InitialState = z
  .record(z.string(), z.unknown())
  .describe("The workflow's initial state mapping.");

export const ResumeBody = z.object({
  value: z
    .unknown()
    .refine((v) => v !== undefined, 'required')
    .describe('The answer; `interrupt()` returns it in the re-run node.'),
});

export const ControlBody = z.object({ reason: z.string().nullable().optional() });

export const ChatResult = z.object({
  output: z.unknown().describe('The answer; null when the turn was paused or cancelled.'),
});

export const Interrupt = z.object({
  type: z.literal('interrupt'),
  payload: z.unknown(),
  thread_id: z.string(),
});

export const Health = z.object({
  status: z.literal('ok'),
  agents: z.array(z.string()),
  workflows: z.array(z.string()),
  skills: z.array(z.string()),
});

const BackendCheck = z.object({
  role: z.enum(['events', 'sessions', 'checkpoints']),
  backend: z.string().describe('postgres, redis, sqlite, memory, or custom'),
  ok: z.boolean(),
  ms: z.number().describe('How long it took to answer, or to fail.'),
  detail: z.string().optional().describe('What failed.'),
});

export const Ready = z.object({
  status: z.enum(['ready', 'unavailable', 'starting']),
  detail: z.string().optional().describe('The failing backends and what failed.'),
  checks: z.array(BackendCheck),
});

export const ControlRecorded = z.object({
  run_id: z.string(),
  verb: z.enum(['pause', 'cancel']),
  recorded: z.literal(true),
});

export const Resumed = z.object({
  run_id: z.string(),
  status: runStatus,
  events: z.number().int().describe('Events the continuation recorded.'),
});

export const WireUsage = z.object({
  requests: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  usd: z.number().nullable(),
});

export const RunView = z.object({
  run_id: z.string(),
  origin: z.string().describe('The agent or workflow the caller addressed.'),
  session_id: z.string().nullable(),
  namespace: z.string().nullable(),
  status: runStatus,
  started_at: z.string(),
  updated_at: z.string(),
  last_seq: z.number().int(),
});

export const RunDetail = RunView.extend({ usage: WireUsage });

export const RunList = z.object({
  runs: z.array(RunView),
  next_before: z
    .string()
    .nullable()
    .describe('Pass as `before` for the next page; null on the last page.'),
});

export const RunsQuery = z.object({
  status: runStatus.optional(),
  origin: z.string().optional(),
  session_id: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.string().optional().describe('Only runs that started before this time (a cursor).'),
});

export const EventsQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(-1)
    .optional()
    .describe('Only events after this seq (the `Last-Event-ID` header wins).'),
  follow: z.stringbool().default(true).describe('Keep streaming until the terminal event.'),
});
