/**
 * The deck's side of schedules: checking them (kinds at construction, targets at `build()`),
 * and the handle `deck.scheduleHandle(name)` gives (describe, pause, resume, trigger). The
 * fires themselves, and starting their runs, are the Runtime's (runtime/schedules.ts).
 */
import { Schedule } from '../authoring/schedule.js';
import type { Workflow } from '../authoring/workflow.js';
import { ConfigError } from '../core/errors.js';
import {
  type FireOutcome,
  fire,
  type ScheduleParts,
  type ScheduleStatus,
  scheduleNamed,
  scheduleStatus,
  setPaused,
} from '../runtime/schedules.js';

/** Kinds and unique names; at construction, so a wrong object fails where it was passed. */
export function checkSchedules(schedules: unknown): Schedule[] {
  if (!Array.isArray(schedules)) {
    throw new ConfigError('Deck option `schedules` must be an array of Schedule');
  }
  const seen = new Set<string>();
  schedules.forEach((schedule, i) => {
    if (!(schedule instanceof Schedule)) {
      throw new ConfigError(
        `schedules[${i}] is not a Schedule; create it with new Schedule({ name, target, cron })`,
      );
    }
    if (seen.has(schedule.name))
      throw new ConfigError(`two schedules are named '${schedule.name}'; rename one`);
    seen.add(schedule.name);
  });
  return schedules as Schedule[];
}

/** Every schedule's target is a workflow or agent of the deck, given input it can take; at `build()`. */
export function checkScheduleTargets(
  schedules: Iterable<Schedule>,
  agents: ReadonlyMap<string, unknown>,
  workflows: ReadonlyMap<string, Workflow>,
): void {
  for (const schedule of schedules) {
    const where = `schedule '${schedule.name}'`;
    if (workflows.has(schedule.target)) {
      if (typeof schedule.input === 'string') {
        throw new ConfigError(
          `${where}: workflow '${schedule.target}' takes an initial state object as \`input\`, not a string`,
        );
      }
    } else if (agents.has(schedule.target)) {
      if (schedule.input !== undefined && typeof schedule.input !== 'string') {
        throw new ConfigError(
          `${where}: agent '${schedule.target}' takes a message (a string) as \`input\``,
        );
      }
    } else {
      const names = [...workflows.keys(), ...agents.keys()].map((n) => `'${n}'`).join(', ');
      throw new ConfigError(
        `${where} targets '${schedule.target}', which is no workflow or agent of this deck. Available: [${names}].`,
      );
    }
  }
}

/** One schedule, as `deck.scheduleHandle(name)` gives it. */
export interface ScheduleHandle {
  /** Its next and last fire, last run and whether it is paused. */
  describe(): Promise<ScheduleStatus>;
  /** Stop firing (in every process sharing the store, across restarts) until resumed. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Start a run now, paused or not; the overlap policy still applies. */
  trigger(): Promise<FireOutcome>;
}

export function scheduleHandle(parts: ScheduleParts, name: string): ScheduleHandle {
  const schedule = scheduleNamed(parts, name);
  return {
    async describe() {
      const only = { ...parts, schedules: new Map([[schedule.name, schedule]]) };
      return (await scheduleStatus(only))[0] as ScheduleStatus;
    },
    pause: () => setPaused(parts, name, true),
    resume: () => setPaused(parts, name, false),
    trigger: () => fire(parts, schedule, new Date(), { manual: true }),
  };
}
