/**
 * What the model saw (#41): the drafts of `model.call.started` and `model.call.completed` for
 * each model request of one played segment of a turn, made by the model wrapper
 * (`whole-replies.ts`) and delivered by the turn's loop in its event order.
 *
 * The request is recorded as sent: on the deck's own OpenAI client, the body the client was
 * handed (`sent-bodies.ts`: `input` or chat `messages`, `instructions`, `tools`, `model`, and
 * every other field as `settings`); for a model object an agent brings (its own client, an
 * in-process model), the engine's request (its input items, instructions, tool definitions
 * and `modelSettings`). On chat completions the instructions are the first, system, message:
 * recorded as `instructions`, and the other messages as `messages`.
 *
 * Large values (the instructions, each tool definition, each input item) are recorded as
 * digests (`v:` and the first 12 hex of the SHA-256 of their canonical JSON); the value itself
 * goes in `values` of the first event of the run that sends it (a continued segment is told
 * which its run already stored), so a history repeated by every request is stored once.
 */
import { createHash } from 'node:crypto';
import type { AgentInputItem, ModelRequest } from '@openai/agents-core';
import type { ModelCallCompleted, ModelCallStarted } from '../../../core/event-kinds.js';
import type { EventDraft } from '../../../core/events.js';
import type { ModelCallsBefore } from '../../../runtime/agent-engine.js';

/** A request body the deck's OpenAI client was handed, by the API it went to. */
export interface SentBody {
  api: 'responses' | 'chat';
  body: Record<string, unknown>;
}

/** A model request recorded as started, waiting for its end. */
export interface OpenModelCall {
  readonly callId: string;
  readonly draft: EventDraft;
  readonly at: number;
}

/** What a response (a whole one, or a stream's `response_done`) says of itself. */
export interface AnsweredResponse {
  output: readonly unknown[];
  usage?: { inputTokens?: number; outputTokens?: number } | undefined;
  requestId?: string | undefined;
  providerData?: Record<string, unknown> | undefined;
}

/** The body fields recorded apart from `settings` (`stream` is how, not what, was asked). */
const NOT_SETTINGS = new Set([
  'model',
  'input',
  'instructions',
  'messages',
  'tools',
  'stream',
  'stream_options',
]);

export class ModelCallLog {
  #calls: number;
  readonly #stored: Set<string>;
  readonly #full: boolean;

  constructor(
    private readonly runId: string,
    detail: 'full' | 'metadata',
    /** The model's name when the request does not say it (a model object). */
    private readonly modelName: string | null,
    before?: ModelCallsBefore,
  ) {
    this.#full = detail === 'full';
    this.#calls = before?.calls ?? 0;
    this.#stored = new Set(before?.values ?? []);
  }

  /** A request about to go out: `request` as the wrapper sends it, `sent` the client's body if seen. */
  start(request: ModelRequest, sent: SentBody | undefined): OpenModelCall {
    const callId = `${this.runId}:c${this.#calls}`;
    this.#calls += 1;
    const parts = sent ? wireParts(sent, request) : engineParts(request);
    // The engine's items of a session's history are the same objects from request to request
    // (and turn to turn, where the session keeps them parsed): their digests are kept. A body
    // the client was handed is built anew for each request, so its items are digested afresh.
    const known = sent ? undefined : KNOWN_DIGESTS;
    const values: Record<string, unknown> = {};
    const digestOf = (value: unknown): string => {
      const { digest, json } = digestAndJson(value, known);
      if (this.#full && !this.#stored.has(digest)) {
        this.#stored.add(digest);
        values[digest] = JSON.parse(json ?? JSON.stringify(value) ?? 'null');
      }
      return digest;
    };
    const payload: ModelCallStarted = {
      callId,
      model: parts.model ?? this.modelName,
      settings: parts.settings,
      instructions:
        parts.instructions === undefined || parts.instructions === null
          ? null
          : digestOf(parts.instructions),
      tools: parts.tools.map(digestOf),
      messages: parts.messages.map(digestOf),
      values,
      detail: this.#full ? 'full' : 'metadata',
    };
    return {
      callId,
      draft: { kind: 'model.call.started', payload },
      at: performance.now(),
    };
  }

  /** `call`'s response ended: `finishReason` when the stream told it apart from the response. */
  completed(
    call: OpenModelCall,
    response: AnsweredResponse,
    finishReason: string | null = null,
  ): EventDraft {
    const payload: ModelCallCompleted = {
      callId: call.callId,
      output: this.#full ? (JSON.parse(JSON.stringify(response.output)) as unknown[]) : null,
      finishReason: finishReason ?? finishReasonOf(response.providerData),
      inputTokens: response.usage?.inputTokens ?? null,
      outputTokens: response.usage?.outputTokens ?? null,
      latencyMs: sinceMs(call.at),
      providerRequestId: response.requestId ?? null,
      error: null,
    };
    return { kind: 'model.call.completed', payload };
  }

  /** `call` failed (or was stopped) before its response ended. */
  failed(call: OpenModelCall, error: unknown): EventDraft {
    const requestId = (error as { requestID?: unknown } | null)?.requestID;
    const payload: ModelCallCompleted = {
      callId: call.callId,
      output: null,
      finishReason: null,
      inputTokens: null,
      outputTokens: null,
      latencyMs: sinceMs(call.at),
      providerRequestId: typeof requestId === 'string' ? requestId : null,
      error: error instanceof Error ? error.message : String(error),
    };
    return { kind: 'model.call.completed', payload };
  }
}

interface RequestParts {
  model?: string | undefined;
  settings: Record<string, unknown>;
  instructions: unknown;
  tools: readonly unknown[];
  messages: readonly unknown[];
}

/** The parts of a body the client was handed. */
function wireParts({ api, body }: SentBody, request: ModelRequest): RequestParts {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!NOT_SETTINGS.has(key) && value !== undefined) settings[key] = value;
  }
  const model = typeof body.model === 'string' ? body.model : undefined;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (api === 'responses') {
    const input = body.input;
    return {
      model,
      settings: plain(settings),
      instructions: body.instructions ?? null,
      tools,
      messages: Array.isArray(input) ? input : input === undefined ? [] : [input],
    };
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const [first] = messages as Array<{ role?: unknown; content?: unknown } | undefined>;
  const system = request.systemInstructions && first?.role === 'system';
  return {
    model,
    settings: plain(settings),
    instructions: system ? (first?.content ?? null) : null,
    tools,
    messages: system ? messages.slice(1) : messages,
  };
}

/** The parts of the engine's request (a model object with its own client, an in-process model). */
function engineParts(request: ModelRequest): RequestParts {
  const input: readonly AgentInputItem[] | readonly unknown[] =
    typeof request.input === 'string'
      ? [{ type: 'message', role: 'user', content: request.input }]
      : request.input;
  return {
    settings: plain(request.modelSettings ?? {}),
    instructions: request.systemInstructions ?? null,
    tools: request.tools,
    messages: input,
  };
}

/** `value` as JSON would keep it (no `undefined`, no functions), a copy. */
function plain(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** Digests of objects the engine shares between requests (its history items), by identity. */
const KNOWN_DIGESTS = new WeakMap<object, string>();

/**
 * Digests by the value's plain JSON. The engine copies its input items for every request and
 * the client's body is built anew, so the same tool definitions, instructions and history
 * items come back as new objects on every request of every turn: their plain JSON (one native
 * `JSON.stringify`) finds the digest that sorting their keys and hashing would make again. The
 * same plain JSON is the same value, so it always has the same canonical digest. Bounded by
 * the characters it holds: when full, it starts over.
 */
const DIGESTS_BY_JSON = new Map<string, string>();
const MAX_CACHED_CHARS = 1_000_000;
let cachedChars = 0;

/** `v:` and the first 12 hex of the SHA-256 of `value`'s canonical JSON. */
export function digestOfValue(value: unknown, known?: WeakMap<object, string>): string {
  return digestAndJson(value, known).digest;
}

/** The digest of `value`, and its plain JSON when it was made (`null`: known by identity). */
function digestAndJson(
  value: unknown,
  known?: WeakMap<object, string>,
): { digest: string; json: string | null } {
  const shared = known && typeof value === 'object' && value !== null ? value : null;
  const cached = shared ? known?.get(shared) : undefined;
  if (cached) return { digest: cached, json: null };
  const json = JSON.stringify(value) ?? 'null';
  let digest = DIGESTS_BY_JSON.get(json);
  if (digest === undefined) {
    digest = `v:${createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 12)}`;
    if (cachedChars + json.length > MAX_CACHED_CHARS) {
      DIGESTS_BY_JSON.clear();
      cachedChars = 0;
    }
    DIGESTS_BY_JSON.set(json, digest);
    cachedChars += json.length;
  }
  if (shared) known?.set(shared, digest);
  return { digest, json };
}

/**
 * JSON with every object's keys sorted, so one value has one digest whatever order its keys
 * were built in.
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) => {
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(inner).sort()) {
        sorted[key] = (inner as Record<string, unknown>)[key];
      }
      return sorted;
    }) ?? 'null'
  );
}

/**
 * Why the model stopped, as its provider says: a chat completion's `finish_reason`, a
 * Responses response's `status` (its `incomplete_details.reason` when incomplete); `null` for
 * a model that says neither (an in-process model).
 */
export function finishReasonOf(providerData: Record<string, unknown> | undefined): string | null {
  if (!providerData) return null;
  const choices = providerData.choices;
  if (Array.isArray(choices)) {
    const reason = (choices[0] as { finish_reason?: unknown } | undefined)?.finish_reason;
    return typeof reason === 'string' ? reason : null;
  }
  const status = providerData.status;
  if (status === 'incomplete') {
    const reason = (providerData.incomplete_details as { reason?: unknown } | null)?.reason;
    return typeof reason === 'string' ? reason : 'incomplete';
  }
  return typeof status === 'string' ? status : null;
}

function sinceMs(at: number): number {
  return Math.round((performance.now() - at) * 10) / 10;
}
