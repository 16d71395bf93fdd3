/**
 * Playing schedules (authoring/schedule.ts): each fire time starts exactly one run across
 * every process sharing the event store, and a paused schedule stays paused across restarts.
 *
 * What is shared lives in the event store, in claims (no table of our own): a fire's run id
 * is derived from the schedule and the fire time (`schedule-<name>-<time>`) and reserved like
 * any caller-chosen run id, so of the processes whose timers fire together one starts the run
 * and the others get a ConflictError and skip it. Three registers, each a claim whose holder
 * is the value: `schedule:<name>:fired` (the last fire time handled, for catching up after
 * downtime), `schedule:<name>:last` (the last run started, for the overlap policy and
 * listings) and `schedule:<name>:paused`.
 * Tested through the deck: src/deck/schedules.test.ts; across processes in
 * test/schedules-restart.test.ts and test/schedules-processes.int.test.ts.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import type { Schedule } from '../authoring/schedule.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConflictError, errorMessage, NotFoundError } from '../core/errors.js';
import { stackOf } from '../core/failure-details.js';
import { log } from '../core/log.js';
import type { RunStatus } from '../core/status.js';
import { TERMINAL_STATUSES } from '../core/status.js';
import type { Claims, EventStore, RunIndex } from '../core/store.js';
import { readRegister, writeRegister } from './registers.js';
import type { RunPlayer } from './run-player.js';

/** How far ahead a schedule's timer is set at most; a later fire is re-aimed then, in ms. */
const MAX_TIMER_MS = 60_000;

export interface ScheduleParts {
  store: Claims & RunIndex;
  schedules: ReadonlyMap<string, Schedule>;
  /**
   * Start the schedule's run for `firedAt` under `runId`; resolves once it is recorded as
   * started (it plays on in the background). ConflictError: another process took the id.
   */
  start(schedule: Schedule, firedAt: Date, runId: string): Promise<void>;
  /** Ask a run to cancel (`overlap: 'interrupt'`). @default none: such a fire skips instead */
  cancel?(runId: string, reason: string): Promise<unknown>;
}

/** How long a trigger (`manual`) with `overlap: 'enqueue'` waits for the previous run, in ms. */
export const TRIGGER_WAIT_MS = 60_000;

/** A schedule as `GET /schedules` and `agentdeck schedules ls` show it. */
export interface ScheduleStatus {
  name: string;
  target: string;
  /** The cron expression, or `every <n>s`. */
  recurrence: string;
  timezone: string;
  paused: boolean;
  /** The next fire time (ISO 8601 UTC), or `null`. */
  nextFire: string | null;
  /** The last fire time handled (a run started, or skipped for an overlap), or `null`. */
  lastFire: string | null;
  lastRunId: string | null;
  lastRunStatus: RunStatus | null;
}

/** What became of one fire. */
export type FireOutcome =
  | { started: string }
  | { skipped: 'paused' | 'overlap' | 'taken'; runId?: string };

const key = (name: string, register: 'fired' | 'last' | 'paused') => `schedule:${name}:${register}`;

/** The run id of a schedule's fire: the same in every process. */
export function fireRunId(schedule: Schedule, firedAt: Date): string {
  return `schedule-${schedule.name}-${firedAt.toISOString().replace(/[-:.]/g, '')}`;
}

export function scheduleNamed(parts: ScheduleParts, name: string): Schedule {
  const schedule = parts.schedules.get(name);
  if (!schedule) {
    const names = [...parts.schedules.keys()].map((n) => `'${n}'`).join(', ');
    throw new NotFoundError(`No schedule named '${name}'. Available: [${names}].`);
  }
  return schedule;
}

/**
 * Start the run of one fire, as its policies say. A trigger (`manual`) ignores a pause; a
 * catch-up fire ignores the overlap with the catch-up runs started just before it. With
 * `overlap: 'enqueue'` a fire waits for the previous run to end (until the schedule's next
 * fire, a trigger {@link TRIGGER_WAIT_MS}; `stopped` ends the wait early), else is skipped.
 */
export async function fire(
  parts: ScheduleParts,
  schedule: Schedule,
  firedAt: Date,
  how: { manual?: boolean; catchingUp?: boolean; stopped?: () => boolean } = {},
): Promise<FireOutcome> {
  const { store } = parts;
  if (!how.manual && (await readRegister(store, key(schedule.name, 'paused'))) !== null) {
    return { skipped: 'paused' };
  }
  if (schedule.overlap !== 'allow' && !how.catchingUp) {
    let running = await previousRunning(parts, schedule);
    if (running && schedule.overlap === 'interrupt' && parts.cancel) {
      const reason = `interrupted by the fire of ${firedAt.toISOString()} (overlap: 'interrupt')`;
      await parts.cancel(running, reason);
      running = null;
    }
    if (running && schedule.overlap === 'enqueue') {
      const until = how.manual
        ? Date.now() + TRIGGER_WAIT_MS
        : (schedule.nextFire(firedAt)?.getTime() ?? Date.now());
      running = await waitForEnd(parts, schedule, until, how.stopped);
    }
    if (running) {
      await writeRegister(store, key(schedule.name, 'fired'), firedAt.toISOString());
      return { skipped: 'overlap', runId: running };
    }
  }
  const runId = fireRunId(schedule, firedAt);
  try {
    await parts.start(schedule, firedAt, runId);
  } catch (error) {
    if (error instanceof ConflictError) return { skipped: 'taken', runId };
    throw error;
  }
  await writeRegister(store, key(schedule.name, 'fired'), firedAt.toISOString());
  await writeRegister(store, key(schedule.name, 'last'), runId);
  return { started: runId };
}

/** The schedule's last run when it is still going, else `null`. */
async function previousRunning(parts: ScheduleParts, schedule: Schedule): Promise<string | null> {
  const last = await readRegister(parts.store, key(schedule.name, 'last'));
  const run = last ? await parts.store.getRun(last) : null;
  return run && !TERMINAL_STATUSES.includes(run.status) ? run.runId : null;
}

/** Poll until the schedule's last run ended (`null`), or `until` passed (the run still going). */
async function waitForEnd(
  parts: ScheduleParts,
  schedule: Schedule,
  until: number,
  stopped: () => boolean = () => false,
): Promise<string | null> {
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const running = await previousRunning(parts, schedule);
    const left = until - Date.now();
    if (running === null || left <= 0 || stopped()) return running;
    await new Promise((done) => setTimeout(done, Math.min(delay, left)));
  }
}

export async function scheduleStatus(
  parts: ScheduleParts,
  now = new Date(),
): Promise<ScheduleStatus[]> {
  const statuses: ScheduleStatus[] = [];
  for (const schedule of parts.schedules.values()) {
    const { store } = parts;
    const lastRunId = await readRegister(store, key(schedule.name, 'last'));
    statuses.push({
      name: schedule.name,
      target: schedule.target,
      recurrence: schedule.recurrence,
      timezone: schedule.timezone,
      paused: (await readRegister(store, key(schedule.name, 'paused'))) !== null,
      nextFire: schedule.nextFire(now)?.toISOString() ?? null,
      lastFire: await readRegister(store, key(schedule.name, 'fired')),
      lastRunId,
      lastRunStatus: lastRunId ? ((await store.getRun(lastRunId))?.status ?? null) : null,
    });
  }
  return statuses;
}

/** Pause (`true`) or resume a schedule, in the store: every process, across restarts. */
export async function setPaused(
  parts: ScheduleParts,
  name: string,
  paused: boolean,
): Promise<void> {
  const schedule = scheduleNamed(parts, name);
  const register = key(schedule.name, 'paused');
  if (paused) await writeRegister(parts.store, register, 'paused');
  else await parts.store.release(register, 'paused');
}

/** Plays the schedules of an open deck: catches up on start, then fires each at its times. */
export class ScheduleRunner {
  readonly #parts: ScheduleParts;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #firing = new Set<Promise<unknown>>();
  #stopped = false;

  constructor(parts: ScheduleParts) {
    this.#parts = parts;
  }

  start(): void {
    for (const schedule of this.#parts.schedules.values()) {
      this.#track(this.#catchUp(schedule).finally(() => this.#aim(schedule)));
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#firing]);
  }

  /** Fires missed while no process was up, as the schedule's `catchUp` says. */
  async #catchUp(schedule: Schedule): Promise<void> {
    const last = await readRegister(this.#parts.store, key(schedule.name, 'fired'));
    if (last === null || schedule.catchUp === 'none') return; // never fired: start from now
    const max = schedule.catchUp === 'latest' ? 1 : schedule.maxCatchUp;
    for (const at of schedule.firesBetween(new Date(last), new Date(), max)) {
      await this.#fireLogged(schedule, at, true);
    }
  }

  /** Set the schedule's timer for its next fire (or a minute ahead, and aim again then). */
  #aim(schedule: Schedule): void {
    if (this.#stopped) return;
    const next = schedule.nextFire(new Date());
    if (!next) return;
    const delay = next.getTime() - Date.now();
    const timer = setTimeout(
      () => {
        this.#timers.delete(schedule.name);
        if (delay <= MAX_TIMER_MS) this.#track(this.#fireLogged(schedule, next));
        this.#aim(schedule);
      },
      Math.max(0, Math.min(delay, MAX_TIMER_MS)),
    );
    timer.unref();
    this.#timers.set(schedule.name, timer);
  }

  async #fireLogged(schedule: Schedule, at: Date, catchingUp = false): Promise<void> {
    try {
      const stopped = () => this.#stopped;
      const outcome = await fire(this.#parts, schedule, at, { catchingUp, stopped });
      if ('skipped' in outcome && outcome.skipped === 'overlap') {
        log.error(
          `[agentdeck] schedule '${schedule.name}' skipped its fire of ${at.toISOString()}: ` +
            `its run '${outcome.runId}' is still going (overlap: '${schedule.overlap}')`,
        );
      }
    } catch (error) {
      log.error(
        `[agentdeck] schedule '${schedule.name}' could not start its run for ${at.toISOString()}: ${errorMessage(error)}`,
      );
    }
  }

  #track(promise: Promise<unknown>): void {
    this.#firing.add(promise);
    void promise.finally(() => this.#firing.delete(promise));
  }
}

/**
 * What the schedule functions need: the store, the schedules, and starting a fire's run
 * through the Runtime (recorded as started by the schedule, then played in the background).
 */
export function scheduleParts(deps: {
  store: EventStore;
  runtime: Pick<RunPlayer, 'streamAgent' | 'streamWorkflow'> & {
    requestControl(runId: string, verb: 'cancel', reason: string | null): Promise<unknown>;
  };
  schedules: ReadonlyMap<string, Schedule>;
  agents: ReadonlyMap<string, AgentDefinition>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
}): ScheduleParts {
  const { store, runtime, schedules, agents, workflows } = deps;
  return {
    store,
    schedules,
    cancel: (runId, reason) => runtime.requestControl(runId, 'cancel', reason),
    async start(schedule, firedAt, runId) {
      const trigger = { schedule: schedule.name, firedAt: firedAt.toISOString() };
      const workflow = workflows.get(schedule.target);
      const agent = agents.get(schedule.target);
      const events = workflow
        ? runtime.streamWorkflow(workflow, schedule.input ?? {}, {
            runId,
            trigger,
            // A durable workflow needs a thread: each fire's run has its own.
            ...(workflow.durable ? { sessionId: runId } : {}),
          })
        : runtime.streamAgent(
            agent as NonNullable<typeof agent>,
            typeof schedule.input === 'string'
              ? schedule.input
              : `Scheduled run of '${schedule.name}' for ${trigger.firedAt}`,
            { runId, trigger },
            false,
          );
      let step = await events.next(); // recorded as started, or a ConflictError: not ours
      void (async () => {
        try {
          while (!step.done) step = await events.next();
        } catch (error) {
          const stack = stackOf(error);
          log.error(
            `[agentdeck] scheduled run '${runId}' failed: ${errorMessage(error)}${stack ? `\n${stack}` : ''}`,
          );
        }
      })();
    },
  };
}
