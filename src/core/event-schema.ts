/**
 * The wire form of canonical events (snake_case JSON, as stored and streamed), as zod
 * schemas. Objects are loose: a newer writer may add fields an older reader ignores.
 * Bump EVENT_SCHEMA_VERSION only for a change an older reader cannot tolerate.
 */
import { z } from 'zod';

/** Version written on every event (`v`). The 3.0 line's format. */
export const EVENT_SCHEMA_VERSION = 3;

export const wireBlock = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('image'), media_type: z.string(), data_b64: z.string() }),
  z.looseObject({ type: z.literal('audio'), media_type: z.string(), data_b64: z.string() }),
  z.looseObject({ type: z.literal('resource'), uri: z.string(), media_type: z.string() }),
  z.looseObject({ type: z.literal('data'), data: z.unknown() }),
]);
export type WireBlock = z.infer<typeof wireBlock>;

const wireUsage = z.looseObject({
  requests: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  usd: z.number().nullable(),
});

const verb = z.enum(['pause', 'cancel', 'resume']);
const nullableString = z.string().nullable();

/** Wire payload schema of each known kind. */
export const wirePayloads = {
  // A background run waiting for a worker (#40).
  'run.queued': z.looseObject({
    invocable_type: z.enum(['agent', 'workflow']),
    input: z.array(wireBlock),
    key: z.string(),
    priority: z.number(),
  }),
  'run.started': z.looseObject({
    invocable_type: z.enum(['agent', 'workflow']),
    input: z.array(wireBlock),
    parent_run_id: z.string().optional(),
    schedule: z.string().optional(),
    fired_at: z.string().optional(),
    // A replay, fork or re-run of a recorded run (#41).
    derived_from: z
      .looseObject({
        run: z.string(),
        how: z.enum(['replay', 'fork', 'rerun']),
        thread: z.string().optional(),
        checkpoint: z.string().optional(),
        changes: z.unknown().optional(),
      })
      .optional(),
    // The experiment item this run plays (#41).
    experiment: z.looseObject({ id: z.string(), item: z.string() }).optional(),
  }),
  'run.completed': z.looseObject({ output: z.array(wireBlock), usage: wireUsage.nullable() }),
  'run.failed': z.looseObject({
    error_type: z.string(),
    message: z.string(),
    // Failures that explain themselves (#41): the stack, the failing node or tool, its input.
    stack: z.string().optional(),
    node: z.string().optional(),
    tool: z.string().optional(),
    input: z.unknown().optional(),
  }),
  'run.cancelled': z.looseObject({ reason: nullableString }),
  'run.paused': z.looseObject({ reason: nullableString }),
  'run.resumed': z.looseObject({
    request_id: nullableString,
    // A person's answer to the tool call the agent run waited for (#19).
    answer: z.looseObject({ approved: z.boolean(), reason: nullableString }).optional(),
    // The answer's id: its idempotency key, or its value's digest (#36).
    answer_id: z.string().optional(),
    // A queued run taken again after its worker died or its attempt failed (#40).
    retry: z.looseObject({ attempt: z.number(), reason: z.string() }).optional(),
    // A workflow thread resumed under another graph: from which version to which (#42).
    graph: z.looseObject({ from: nullableString, to: z.string() }).optional(),
  }),
  'run.interrupted': z.looseObject({
    payload: z.unknown(),
    thread_id: z.string(),
    // `approval`: an agent's tool call waits for a person (#19); absent for a workflow.
    reason: z.literal('approval').optional(),
    // The JSON Schema an answer must match (#41).
    answer_schema: z.record(z.string(), z.unknown()).optional(),
  }),
  'control.requested': z.looseObject({ verb, reason: nullableString, request_id: z.string() }),
  'control.observed': z.looseObject({ verb, request_id: z.string() }),
  'text.delta': z.looseObject({ message_id: z.string(), text: z.string() }),
  'thought.delta': z.looseObject({ message_id: z.string(), text: z.string() }),
  'message.completed': z.looseObject({
    message_id: z.string(),
    role: z.literal('assistant'),
    content: z.array(wireBlock),
  }),
  'tool.call.started': z.looseObject({
    call_id: z.string(),
    name: z.string(),
    arguments: z.unknown(),
  }),
  'tool.call.completed': z.looseObject({
    call_id: z.string(),
    name: z.string(),
    output: z.unknown(),
    error: nullableString,
  }),
  'node.updated': z.looseObject({
    node: z.string(),
    delta: z.unknown(),
    duration_ms: z.number().optional(),
  }),
  'usage.reported': z.looseObject({
    model: nullableString,
    requests: z.number(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    usd: z.number().nullable(),
  }),
  'status.reported': z.looseObject({
    level: z.enum(['info', 'warning', 'error']),
    message: z.string(),
  }),
  'progress.reported': z.looseObject({
    progress: z.number(),
    total: z.number().nullable(),
    message: nullableString,
  }),
  'artifact.created': z.looseObject({ name: z.string(), block: wireBlock }),
  // What the model saw and answered (#41); values stored once per run, by digest.
  'model.call.started': z.looseObject({
    call_id: z.string(),
    model: nullableString,
    settings: z.record(z.string(), z.unknown()),
    instructions: nullableString,
    tools: z.array(z.string()),
    messages: z.array(z.string()),
    values: z.record(z.string(), z.unknown()),
    detail: z.enum(['full', 'metadata']),
  }),
  'model.call.completed': z.looseObject({
    call_id: z.string(),
    output: z.array(z.unknown()).nullable(),
    finish_reason: nullableString,
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    latency_ms: z.number(),
    provider_request_id: nullableString,
    error: nullableString,
  }),
  // A score given to a run by a code scorer or a judge (#41).
  'score.recorded': z.looseObject({
    name: z.string(),
    value: z.number(),
    passed: z.boolean().nullable(),
    comment: nullableString,
    experiment: nullableString,
  }),
  custom: z.looseObject({ data: z.unknown() }),
} as const;

/** The envelope every stored or streamed event has. */
export const wireEnvelope = z.looseObject({
  v: z.number().int(),
  kind: z.string().min(1),
  seq: z.number().int().nonnegative(),
  run_id: z.string().min(1),
  session_id: nullableString,
  namespace: nullableString,
  origin: z.string(),
  ts: z.string(),
  payload: z.unknown(),
});
export type WireEvent = z.infer<typeof wireEnvelope>;
