/** How numbers, times and statuses read on every page. */

export const STATUSES = [
  'queued',
  'pending',
  'running',
  'paused',
  'waiting_human',
  'completed',
  'failed',
  'cancelled',
];

export const ENDED = new Set(['completed', 'failed', 'cancelled']);

export function statusLabel(status) {
  return status === 'waiting_human' ? 'waiting' : status;
}

/** `1.2 s`, `3 min 4 s`, `2 h 5 min`. */
export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** How long a run took, or has taken so far while it plays. */
export function runDuration(run, now = Date.now()) {
  const start = Date.parse(run.started_at);
  const end =
    run.status === 'running' || run.status === 'pending' || run.status === 'queued'
      ? now
      : Date.parse(run.updated_at);
  return duration(end - start);
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function when(iso) {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? timeFormat.format(t) : '–';
}

export function clock(iso) {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toLocaleTimeString() : '';
}

const numberFormat = new Intl.NumberFormat();

export function tokens(usage) {
  return usage ? numberFormat.format(usage.total_tokens) : '–';
}

export function cost(usage) {
  if (!usage || usage.usd === null || usage.usd === undefined) return '–';
  return `$${usage.usd < 0.01 && usage.usd > 0 ? usage.usd.toFixed(4) : usage.usd.toFixed(2)}`;
}

/** JSON for reading: indented, and a string shown as itself. */
export function pretty(value) {
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

/** A schedule's fire (`schedule-<name>-<UTC time, no separators>`): its name and time. */
const FIRE = /^schedule-(.+)-\d{4}(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\d{3}Z$/;

/**
 * A long id by its distinctive part: a schedule's fire by its schedule and time
 * (`nightly 11-27 03:00Z`); any other (a run id: a time-ordered UUID whose first digits runs
 * of the same weeks share) by its ends, its random tail kept.
 */
export function shortId(id) {
  const fire = FIRE.exec(id);
  if (fire) {
    const [, name, month, day, hour, minute, second] = fire;
    return `${name} ${month}-${day} ${hour}:${minute}${second === '00' ? '' : `:${second}`}Z`;
  }
  return id.length > 16 ? `${id.slice(0, 4)}…${id.slice(-8)}` : id;
}
