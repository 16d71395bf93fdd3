/**
 * The stored form of an event, shared by every event-store backend: the envelope's columns
 * plus the wire payload as JSON text. Writing goes through `prepareEvents` (serialize a
 * whole batch before anything is written, so a bad event fails the batch), reading through
 * `eventFromStored` (which uses `parseEvent`, so a kind this reader does not know survives
 * as an `UnknownEvent` with its raw payload). Every backend imports it from here, so
 * they agree byte for byte.
 */
import { errorMessage, InvalidInputError } from '../../core/errors.js';
import {
  EVENT_SCHEMA_VERSION,
  type Event,
  isKnownKind,
  type NewEvent,
  parseEvent,
  payloadToWire,
  stampEvent,
} from '../../core/events.js';

/** One stored event row, as every backend keeps it. */
export interface StoredEvent {
  runId: string;
  seq: number;
  v: number;
  /** The kind as written (an unknown event's `rawKind`). */
  kind: string;
  sessionId: string | null;
  namespace: string | null;
  origin: string;
  ts: string;
  /** The wire (snake_case) payload, as JSON text. */
  payload: string;
}

/** A new event checked and serialized, waiting for the store to assign `seq` and `ts`. */
export interface PreparedEvent {
  event: NewEvent;
  /** The kind to store: the event's kind, or an unknown event's `rawKind`. */
  kind: string;
  /** The wire payload as JSON text. */
  payload: string;
  /** Whether the event can change the run index's status (a `run.*` kind). */
  lifecycle: boolean;
}

/**
 * Check and serialize a batch. Throws `InvalidInputError` (naming the event's index) before
 * anything is written when an envelope field is malformed or a payload is not JSON.
 */
export function prepareEvents(events: readonly NewEvent[]): PreparedEvent[] {
  if (!Array.isArray(events)) {
    throw new InvalidInputError('append() takes an array of events');
  }
  return events.map((event, index) => prepareEvent(event, index));
}

/** How an error names the event (a function of its own: no closure per event on the hot path). */
function where(index: number): string {
  return `event ${index} of the batch`;
}

function prepareEvent(event: NewEvent, index: number): PreparedEvent {
  if (typeof event !== 'object' || event === null) {
    throw new InvalidInputError(`${where(index)} is not an object`);
  }
  const { runId, origin, sessionId, namespace } = event;
  if (typeof runId !== 'string' || runId.length === 0) {
    throw new InvalidInputError(`${where(index)} has no runId (a non-empty string is required)`);
  }
  if (typeof origin !== 'string') {
    throw new InvalidInputError(`${where(index)} (run '${runId}') has no origin string`);
  }
  if (!isNullableString(sessionId) || !isNullableString(namespace)) {
    throw new InvalidInputError(
      `${where(index)} (run '${runId}'): sessionId and namespace must be strings or null`,
    );
  }
  const loose = event as { kind: unknown; rawKind?: unknown };
  const kind = loose.kind === 'unknown' ? loose.rawKind : loose.kind;
  if (typeof kind !== 'string' || kind.length === 0) {
    throw new InvalidInputError(`${where(index)} (run '${runId}') has no kind`);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(wirePayload(event));
  } catch (error) {
    throw new InvalidInputError(
      `${where(index)} (run '${runId}', kind '${kind}') has a payload that cannot be written as JSON: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  if (json === undefined) {
    throw new InvalidInputError(`${where(index)} (run '${runId}', kind '${kind}') has no payload`);
  }
  return { event, kind, payload: json, lifecycle: kind.startsWith('run.') };
}

function wirePayload(event: NewEvent): unknown {
  // An UnknownEvent read elsewhere and appended here (a copy, a relay) keeps its raw payload,
  // and so does a kind this writer does not know: it is taken to be in wire form already.
  const loose = event as { kind: string; payload: unknown };
  if (!isKnownKind(loose.kind)) return loose.payload;
  // A known kind without an object payload has nothing to map; it is refused as no payload.
  if (typeof loose.payload !== 'object' || loose.payload === null) return undefined;
  return payloadToWire(loose.kind, loose.payload);
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** The event a store returns from `append`: the caller's event with `v`, `seq` and `ts`. */
export function stampPrepared(prepared: PreparedEvent, seq: number, ts: string): Event {
  const { event } = prepared;
  if (isKnownKind(prepared.kind) && event.kind === prepared.kind) return stampEvent(event, seq, ts);
  return {
    v: EVENT_SCHEMA_VERSION,
    seq,
    runId: event.runId,
    sessionId: event.sessionId,
    namespace: event.namespace,
    origin: event.origin,
    ts,
    kind: 'unknown',
    rawKind: prepared.kind,
    payload: JSON.parse(prepared.payload) as unknown,
  };
}

/** The row to store for a prepared event. */
export function toStored(prepared: PreparedEvent, seq: number, ts: string): StoredEvent {
  const { event } = prepared;
  return {
    runId: event.runId,
    seq,
    v: EVENT_SCHEMA_VERSION,
    kind: prepared.kind,
    sessionId: event.sessionId,
    namespace: event.namespace,
    origin: event.origin,
    ts,
    payload: prepared.payload,
  };
}

/** Rebuild an event from its stored row; unknown kinds and unreadable payloads stay raw. */
export function eventFromStored(row: StoredEvent): Event {
  return parseEvent({
    v: row.v,
    kind: row.kind,
    seq: row.seq,
    run_id: row.runId,
    session_id: row.sessionId,
    namespace: row.namespace,
    origin: row.origin,
    ts: row.ts,
    payload: JSON.parse(row.payload) as unknown,
  });
}

/**
 * The timestamp for a run's next event: now, in ISO-8601 UTC with milliseconds, but never
 * earlier than the run's previous event (the wall clock may step back).
 */
export function nextTimestamp(previous: string | null | undefined): string {
  const now = isoNow();
  return previous && previous > now ? previous : now;
}

let isoMillis = Number.NaN;
let isoText = '';

/** `new Date().toISOString()`, formatted once per millisecond: a token stream asks far more often. */
export function isoNow(): string {
  const millis = Date.now();
  if (millis !== isoMillis) {
    isoMillis = millis;
    isoText = new Date(millis).toISOString();
  }
  return isoText;
}

/** `pauseRun()` takes a pause: `run.interrupted` or `run.paused`. */
export function requirePause(event: NewEvent): void {
  const kind = (event as { kind?: unknown } | null)?.kind;
  if (kind !== 'run.interrupted' && kind !== 'run.paused') {
    throw new InvalidInputError(
      `pauseRun() takes a pause (run.interrupted, run.paused), not '${String(kind)}'`,
    );
  }
}

/** `endRun` takes a terminal event only. */
export function requireTerminal(event: NewEvent): void {
  const kind = (event as { kind?: unknown } | null)?.kind;
  if (kind !== 'run.completed' && kind !== 'run.failed' && kind !== 'run.cancelled') {
    throw new InvalidInputError(
      `endRun() takes a terminal event (run.completed, run.failed, run.cancelled), not '${String(kind)}'`,
    );
  }
}
