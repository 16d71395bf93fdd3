/**
 * Schedules: recurring work that starts by itself. A `Schedule` starts a run of a workflow
 * (with an initial state) or an agent turn (with a message) on a cron expression or an
 * interval, in a time zone. It is declared in the deck's catalog (`new Deck({ schedules })`)
 * or in a project directory (`schedules/<name>/schedule.ts`, default export), checked when
 * constructed (expression, interval, time zone) and at `build()` (its target exists). Cron
 * expressions are parsed by croner (5 fields, or 6 with seconds first). The deck that plays
 * them is in runtime/schedules.ts.
 */
import { Cron } from 'croner';
import { ConfigError } from '../core/errors.js';

/**
 * What a fire does when the schedule's previous run is still going: `skip` it, `allow` both,
 * `enqueue` it (wait for the previous run to end, then start), or `interrupt` (cancel the
 * previous run, then start). As `multitask` does for a session (#40; runtime/schedules.ts).
 */
export type OverlapPolicy = 'skip' | 'allow' | 'enqueue' | 'interrupt';

/** Which fires missed while no process was up are started when one comes back. */
export type CatchUpPolicy = 'none' | 'latest' | 'all';

export interface ScheduleOptions {
  /** Unique among the deck's schedules; part of each run's id. Letters, digits, `-`, `_`. */
  name: string;
  /** The workflow or agent a fire starts. */
  target: string;
  /** A cron expression (`0 9 * * 1-5`; 6 fields put seconds first). Give this or `every`. */
  cron?: string;
  /** An interval: seconds, or `'30s'`, `'5m'`, `'1h'`, `'1d'`; fires at its multiples since the epoch. */
  every?: number | string;
  /** The IANA time zone the cron expression reads in. @default 'UTC' */
  timezone?: string;
  /**
   * What a fire starts with: a workflow's initial state, or an agent's message.
   * @default {} for a workflow; a message naming the schedule and fire time for an agent
   */
  input?: Record<string, unknown> | string;
  /**
   * When the previous run is still going: `skip` this fire, `allow` both, `enqueue` this
   * fire (it starts when the previous run ends; it waits at most until the schedule's next
   * fire, a trigger at most 60 s, and is skipped past that), or `interrupt` the previous run
   * (cancelled at its next safe point; this fire starts at once). @default 'skip'
   */
  overlap?: OverlapPolicy;
  /**
   * Fires missed while no process was up: `none`, the `latest` one, or `all` of them (at most
   * `maxCatchUp`, the latest kept). @default 'latest'
   */
  catchUp?: CatchUpPolicy;
  /** Most missed fires `catchUp: 'all'` starts. @default 10 */
  maxCatchUp?: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * @example
 * ```ts
 * const nightly = new Schedule({ name: 'nightly-report', target: 'report', cron: '0 2 * * *',
 *   timezone: 'Europe/Paris', input: { scope: 'yesterday' } });
 * await using deck = await new Deck({ workflows: [report], schedules: [nightly] }).open({ wakeTimers: true });
 * ```
 */
export class Schedule {
  readonly kind = 'agentdeck.schedule' as const;
  readonly name: string;
  readonly target: string;
  readonly cron: string | null;
  /** The interval in ms, when the schedule has one. */
  readonly everyMs: number | null;
  readonly timezone: string;
  readonly input: Record<string, unknown> | string | undefined;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
  readonly maxCatchUp: number;
  readonly #pattern: Cron | null;

  constructor(options: ScheduleOptions) {
    const name = options?.name;
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new ConfigError(
        `Schedule needs a \`name\` of letters, digits, - and _ (at most 64), got ${JSON.stringify(name)}`,
      );
    }
    const where = `schedule '${name}'`;
    if (typeof options.target !== 'string' || options.target === '') {
      throw new ConfigError(`${where} needs a \`target\`: the workflow or agent it starts`);
    }
    if ((options.cron === undefined) === (options.every === undefined)) {
      throw new ConfigError(`${where} needs exactly one of \`cron\` and \`every\``);
    }
    this.name = name;
    this.target = options.target;
    this.timezone = checkTimezone(where, options.timezone ?? 'UTC');
    this.cron = options.cron ?? null;
    this.#pattern = this.cron === null ? null : parseCron(where, this.cron, this.timezone);
    this.everyMs = options.every === undefined ? null : parseEvery(where, options.every);
    this.input = options.input;
    this.overlap = oneOf(where, 'overlap', options.overlap ?? 'skip', [
      'skip',
      'allow',
      'enqueue',
      'interrupt',
    ]);
    this.catchUp = oneOf(where, 'catchUp', options.catchUp ?? 'latest', ['none', 'latest', 'all']);
    this.maxCatchUp = options.maxCatchUp ?? 10;
    if (!Number.isSafeInteger(this.maxCatchUp) || this.maxCatchUp < 1) {
      throw new ConfigError(`${where}: \`maxCatchUp\` must be a positive whole number`);
    }
  }

  /** The first fire time strictly after `after`, or `null` when there is none. */
  nextFire(after: Date): Date | null {
    if (this.everyMs !== null) {
      return new Date((Math.floor(after.getTime() / this.everyMs) + 1) * this.everyMs);
    }
    return this.#pattern?.nextRun(after) ?? null;
  }

  /** The fire times in (`from`, `to`], the last `max` of them, oldest first. */
  firesBetween(from: Date, to: Date, max: number): Date[] {
    const fires: Date[] = [];
    for (let at = this.nextFire(from); at && at <= to; at = this.nextFire(at)) {
      fires.push(at);
      if (fires.length > max) fires.shift();
    }
    return fires;
  }

  /** How it recurs, for listings: the cron expression, or `every 30s`. */
  get recurrence(): string {
    return this.cron ?? `every ${(this.everyMs ?? 0) / 1000}s`;
  }
}

function checkTimezone(where: string, timezone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
    return timezone;
  } catch {
    throw new ConfigError(
      `${where}: '${timezone}' is not an IANA time zone; use one like 'UTC' or 'Europe/Paris'`,
    );
  }
}

function parseCron(where: string, expression: string, timezone: string): Cron {
  try {
    return new Cron(expression, { timezone, paused: true });
  } catch (error) {
    throw new ConfigError(
      `${where}: cron expression '${expression}' is not valid (${(error as Error).message}); ` +
        "use 5 fields (minute hour day month weekday), e.g. '0 9 * * 1-5', or 6 with seconds first",
    );
  }
}

function parseEvery(where: string, every: number | string): number {
  const match = typeof every === 'string' ? /^(\d+(?:\.\d+)?)([smhd])$/.exec(every.trim()) : null;
  const ms =
    typeof every === 'number'
      ? every * 1000
      : match
        ? Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 0)
        : Number.NaN;
  if (!Number.isFinite(ms) || ms < 1_000 || !Number.isInteger(ms)) {
    throw new ConfigError(
      `${where}: \`every\` must be at least one second, as seconds or '30s', '5m', '1h', '1d', got ${JSON.stringify(every)}`,
    );
  }
  return ms;
}

function oneOf<T extends string>(
  where: string,
  field: string,
  value: string,
  allowed: readonly T[],
): T {
  if (!allowed.includes(value as T)) {
    throw new ConfigError(
      `${where}: \`${field}\` must be ${allowed.map((v) => `'${v}'`).join(' or ')}, got '${value}'`,
    );
  }
  return value as T;
}
