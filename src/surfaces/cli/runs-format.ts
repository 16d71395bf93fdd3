/**
 * How `service runs` prints runs and events for a person: one line per run or event, the
 * fields an operator looks for first. `--json` prints the wire forms instead.
 */
import type { Event } from '../../core/events.js';
import type { ControlRequest, RunSummary } from '../../core/store.js';

/** A run's summary in its wire (snake_case) form, as `--json` prints it. */
export function runToWire(run: RunSummary) {
  return {
    run_id: run.runId,
    origin: run.origin,
    status: run.status,
    session_id: run.sessionId,
    namespace: run.namespace,
    started_at: run.startedAt,
    updated_at: run.updatedAt,
    last_seq: run.lastSeq,
  };
}

export function runHeader(run: RunSummary, unplayedResume: ControlRequest | null = null): string {
  const lines = [
    `run       ${run.runId}`,
    `origin    ${run.origin}`,
    `status    ${run.status}`,
    `session   ${run.sessionId ?? '-'}`,
    `started   ${run.startedAt}`,
    `updated   ${run.updatedAt} (seq ${run.lastSeq})`,
  ];
  if (unplayedResume) {
    // Said here because nothing else would: the request waits until a server can play it.
    lines.push(
      `resume    asked at ${unplayedResume.requestedAt} (request ${unplayedResume.requestId}), ` +
        `not played yet: a server open on this store whose catalog has '${run.origin}' ` +
        "plays it within about 3 seconds; check the servers' logs if none does",
    );
  }
  return lines.join('\n');
}

export function runsTable(runs: readonly RunSummary[]): string {
  if (runs.length === 0) return 'no runs';
  const rows = runs.map((r) => [r.startedAt, r.status, r.origin, r.sessionId ?? '-', r.runId]);
  const header = ['started', 'status', 'origin', 'session', 'run'];
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** One line per event: seq, time, kind, and what it says in a few words. */
export function eventLine(event: Event): string {
  const kind = event.kind === 'unknown' ? event.rawKind : event.kind;
  return `${String(event.seq).padStart(4)}  ${event.ts}  ${kind.padEnd(19)}  ${summary(event)}`.trimEnd();
}

const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const json = (value: unknown) => clip(JSON.stringify(value) ?? '');

function summary(event: Event): string {
  switch (event.kind) {
    case 'text.delta':
    case 'thought.delta':
      return json(event.payload.text);
    case 'tool.call.started':
      return `${event.payload.name}(${json(event.payload.arguments)})`;
    case 'tool.call.completed':
      return event.payload.error
        ? `${event.payload.name} failed: ${clip(event.payload.error)}`
        : `${event.payload.name} -> ${json(event.payload.output)}`;
    case 'node.updated':
      return `${event.payload.node} ${json(event.payload.delta)}`;
    case 'run.failed':
      return `${event.payload.errorType}: ${clip(event.payload.message)}`;
    case 'run.cancelled':
    case 'run.paused':
      return event.payload.reason ?? '';
    case 'run.interrupted':
      return `thread ${event.payload.threadId}: ${json(event.payload.payload)}`;
    case 'control.requested':
      return `${event.payload.verb}${event.payload.reason ? `: ${event.payload.reason}` : ''}`;
    case 'usage.reported':
      return `${event.payload.inputTokens} in, ${event.payload.outputTokens} out`;
    case 'status.reported':
      return `${event.payload.level}: ${clip(event.payload.message)}`;
    default:
      return '';
  }
}
