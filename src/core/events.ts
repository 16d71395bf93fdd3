/**
 * The canonical event: one envelope for every run, agent turn or workflow. This module is
 * the one place that maps the TypeScript form (camelCase, ContentBlock instances) to the
 * wire form (snake_case JSON) and back. Parsing never throws on an unknown kind or a
 * payload it cannot read: such an event becomes an `UnknownEvent` that keeps the raw data.
 */
import {
  AudioBlock,
  type ContentBlock,
  DataBlock,
  ImageBlock,
  ResourceBlock,
  TextBlock,
} from './blocks.js';
import { InvalidInputError } from './errors.js';
import type { EventKind, EventPayloads, TerminalKind } from './event-kinds.js';
import {
  EVENT_SCHEMA_VERSION,
  type WireBlock,
  type WireEvent,
  wireEnvelope,
  wirePayloads,
} from './event-schema.js';

export { EVENT_SCHEMA_VERSION };

/** Fields every event carries. */
export interface EventEnvelope {
  /** Schema version of the writer. */
  v: number;
  /** Position in the run, from 0, gap-free; assigned by the store. */
  seq: number;
  runId: string;
  sessionId: string | null;
  namespace: string | null;
  /** The invocable (agent or workflow name) the caller addressed. */
  origin: string;
  /** ISO-8601 UTC timestamp assigned by the store. */
  ts: string;
}

export type EventOf<K extends EventKind> = EventEnvelope & { kind: K; payload: EventPayloads[K] };

/** An event of a kind this reader knows. Narrow on `kind`. */
export type KnownEvent = { [K in EventKind]: EventOf<K> }[EventKind];

/** An event of a kind this reader does not know (or could not read); consumers skip it. */
export interface UnknownEvent extends EventEnvelope {
  kind: 'unknown';
  /** The kind as written. */
  rawKind: string;
  /** The payload as written (wire form). */
  payload: unknown;
}

export type Event = KnownEvent | UnknownEvent;

/** An event before the store has assigned `v`, `seq` and `ts`. */
export type NewEvent = {
  [K in EventKind]: Omit<EventOf<K>, 'v' | 'seq' | 'ts'>;
}[EventKind];

export type TerminalEvent = { [K in TerminalKind]: EventOf<K> }[TerminalKind];

export function isTerminal(event: Event): event is TerminalEvent {
  return (
    event.kind === 'run.completed' || event.kind === 'run.failed' || event.kind === 'run.cancelled'
  );
}

export function isKnownKind(kind: string): kind is EventKind {
  return Object.hasOwn(wirePayloads, kind);
}

/** Fields holding content blocks, per kind; every other payload value is opaque JSON. */
const BLOCK_LIST_FIELDS: Partial<Record<EventKind, string>> = {
  'run.queued': 'input',
  'run.started': 'input',
  'run.completed': 'output',
  'message.completed': 'content',
};

export function blockToWire(block: ContentBlock): WireBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, media_type: block.mediaType, data_b64: block.dataB64 };
    case 'resource':
      return { type: 'resource', uri: block.uri, media_type: block.mediaType };
    case 'data':
      return { type: 'data', data: block.data };
  }
}

export function blockFromWire(block: WireBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return new TextBlock(block.text);
    case 'image':
      return new ImageBlock({ mediaType: block.media_type, dataB64: block.data_b64 });
    case 'audio':
      return new AudioBlock({ mediaType: block.media_type, dataB64: block.data_b64 });
    case 'resource':
      return new ResourceBlock({ uri: block.uri, mediaType: block.media_type });
    case 'data':
      return new DataBlock(block.data);
  }
}

const snake = cachedRename((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const camel = cachedRename((key) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));

/** Payload keys are a small fixed set: rename each once (every stored event maps its keys). */
function cachedRename(rename: (key: string) => string): (key: string) => string {
  const cache = new Map<string, string>();
  return (key) => {
    let renamed = cache.get(key);
    if (renamed === undefined) {
      renamed = rename(key);
      if (cache.size < 1_024) cache.set(key, renamed);
    }
    return renamed;
  };
}

function mapKeys(value: object, rename: (key: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  // `for...in` with an own-key check: no entry arrays on the path every stored event takes.
  for (const key in source) {
    if (Object.hasOwn(source, key)) out[rename(key)] = source[key];
  }
  return out;
}

/** The wire (snake_case) form of a payload. */
export function payloadToWire(kind: EventKind, payload: object): Record<string, unknown> {
  const wire = mapKeys(payload, snake);
  const blockField = BLOCK_LIST_FIELDS[kind];
  if (blockField) wire[blockField] = (wire[blockField] as ContentBlock[]).map(blockToWire);
  if (kind === 'artifact.created') wire.block = blockToWire(wire.block as ContentBlock);
  if (kind === 'run.completed' && wire.usage) wire.usage = mapKeys(wire.usage as object, snake);
  return wire;
}

function payloadFromWire<K extends EventKind>(kind: K, wire: Record<string, unknown>) {
  const payload = mapKeys(wire, camel);
  const blockField = BLOCK_LIST_FIELDS[kind];
  if (blockField) payload[blockField] = (wire[blockField] as WireBlock[]).map(blockFromWire);
  if (kind === 'artifact.created') payload.block = blockFromWire(wire.block as WireBlock);
  if (kind === 'run.completed' && wire.usage) payload.usage = mapKeys(wire.usage as object, camel);
  return payload as unknown as EventPayloads[K];
}

/** The wire (snake_case JSON) form of an event, as stored and streamed. */
export function toWire(event: Event): WireEvent {
  const kind = event.kind === 'unknown' ? event.rawKind : event.kind;
  const payload =
    event.kind === 'unknown' ? event.payload : payloadToWire(event.kind, event.payload);
  return {
    v: event.v,
    kind,
    seq: event.seq,
    run_id: event.runId,
    session_id: event.sessionId,
    namespace: event.namespace,
    origin: event.origin,
    ts: event.ts,
    payload,
  };
}

/**
 * Parse an event from its wire form (an object or a JSON string). An unknown kind, or a
 * known kind whose payload does not match its schema, yields an `UnknownEvent`; only a
 * malformed envelope (no run id, no seq...) is refused.
 */
export function parseEvent(input: unknown): Event {
  const raw = typeof input === 'string' ? safeJson(input) : input;
  const envelope = wireEnvelope.safeParse(raw);
  if (!envelope.success) {
    throw new InvalidInputError(`not a canonical event envelope: ${envelope.error.message}`);
  }
  const w = envelope.data;
  const base: EventEnvelope = {
    v: w.v,
    seq: w.seq,
    runId: w.run_id,
    sessionId: w.session_id,
    namespace: w.namespace,
    origin: w.origin,
    ts: w.ts,
  };
  if (isKnownKind(w.kind)) {
    const payload = wirePayloads[w.kind].safeParse(w.payload);
    if (payload.success) {
      try {
        return { ...base, kind: w.kind, payload: payloadFromWire(w.kind, payload.data) } as Event;
      } catch {
        // A block that no longer passes construction (e.g. over the inline limit): keep it raw.
      }
    }
  }
  return { ...base, kind: 'unknown', rawKind: w.kind, payload: w.payload };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('event is not valid JSON', { cause: error });
  }
}

/** Complete a new event with the fields a store assigns. */
export function stampEvent(event: NewEvent, seq: number, ts: string): Event {
  return { ...event, v: EVENT_SCHEMA_VERSION, seq, ts } as Event;
}

/** A payload with its kind, before the runtime adds the envelope (what engines produce). */
export type EventDraft = { [K in EventKind]: { kind: K; payload: EventPayloads[K] } }[EventKind];
