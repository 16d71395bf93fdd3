/**
 * A small observer for local debugging: one line per event, readable (`pretty`) or as the
 * event's stored JSON (`json`, so a file it writes is JSON Lines that `parseEvent` reads).
 */
import { type Event, toWire } from '../core/events.js';
import type { Observer } from './observer.js';

/** Anything with a `write(text)` method: `process.stdout`, `fs.createWriteStream(path)`... */
export interface LineSink {
  write(text: string): unknown;
}

export interface ConsoleObserverOptions {
  /** Where lines go. The observer never ends a stream it was given. @default process.stderr */
  stream?: LineSink;
  /** `pretty`: time, origin, run, seq, kind and a short summary; `json`: the wire event. @default 'pretty' */
  format?: 'pretty' | 'json';
  /** Print deltas (`text.delta`, `thought.delta`) too, one line each. @default false */
  deltas?: boolean;
}

/**
 * @example
 * new Deck({ agents, observers: [new ConsoleObserver()] });
 * // JSON Lines into a file:
 * new ConsoleObserver({ format: 'json', stream: fs.createWriteStream('events.jsonl', { flags: 'a' }) });
 */
export class ConsoleObserver implements Observer {
  readonly name = 'console';
  readonly #stream: LineSink;
  readonly #format: 'pretty' | 'json';
  readonly #deltas: boolean;

  constructor(options: ConsoleObserverOptions = {}) {
    this.#stream = options.stream ?? process.stderr;
    this.#format = options.format ?? 'pretty';
    this.#deltas = options.deltas ?? false;
  }

  emit(event: Event): void {
    if (!this.#deltas && (event.kind === 'text.delta' || event.kind === 'thought.delta')) return;
    const line = this.#format === 'json' ? JSON.stringify(toWire(event)) : prettyLine(event);
    this.#stream.write(`${line}\n`);
  }
}

function prettyLine(event: Event): string {
  const time = event.ts.slice(11, 23);
  const head = `${time} ${event.origin} ${event.runId.slice(0, 8)} #${event.seq} ${event.kind === 'unknown' ? event.rawKind : event.kind}`;
  const detail = summary(event);
  return detail ? `${head} ${detail}` : head;
}

function summary(event: Event): string {
  switch (event.kind) {
    case 'text.delta':
    case 'thought.delta':
      return JSON.stringify(event.payload.text);
    case 'tool.call.started':
      return `${event.payload.name} ${clip(JSON.stringify(event.payload.arguments))}`;
    case 'tool.call.completed':
      return event.payload.error
        ? `${event.payload.name} error: ${event.payload.error}`
        : `${event.payload.name} -> ${clip(JSON.stringify(event.payload.output))}`;
    case 'node.updated':
      return `${event.payload.node} ${clip(JSON.stringify(event.payload.delta))}`;
    case 'usage.reported': {
      const { model, inputTokens, outputTokens, usd } = event.payload;
      return `${model ?? '?'} in=${inputTokens} out=${outputTokens}${usd === null ? '' : ` $${usd}`}`;
    }
    case 'run.failed': {
      const { errorType, message, node, tool } = event.payload;
      const where =
        node !== undefined ? ` (node ${node})` : tool !== undefined ? ` (tool ${tool})` : '';
      return `${errorType}${where}: ${message}`;
    }
    case 'run.cancelled':
    case 'run.paused':
      return event.payload.reason ?? '';
    case 'status.reported':
      return `${event.payload.level}: ${event.payload.message}`;
    case 'model.call.started': {
      const { model, messages, tools } = event.payload;
      return `${model ?? '?'} messages=${messages.length} tools=${tools.length}`;
    }
    case 'model.call.completed': {
      const { error, finishReason, inputTokens, outputTokens, latencyMs } = event.payload;
      return error
        ? `error: ${error} (${latencyMs}ms)`
        : `${finishReason ?? '-'} in=${inputTokens ?? '?'} out=${outputTokens ?? '?'} ${latencyMs}ms`;
    }
    default:
      return '';
  }
}

function clip(text: string | undefined, max = 120): string {
  if (text === undefined) return '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
