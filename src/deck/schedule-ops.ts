/**
 * The deck's side of schedules: checking them (kinds at construction, targets at `build()`),
 * starting a fire's run through the Runtime (recorded as started by the schedule, then played
 * in the background), and the handle `deck.scheduleHandle(name)` gives (describe, pause,
 * resume, trigger). The fires themselves are played by `ScheduleRunner` (schedules.ts).
 */
import { Schedule } from '../authoring/schedule.js';
import type { Workflow } from '../authoring/workflow.js';
import { ConfigError, errorMessage } from '../core/errors.js';
import type { EventStore } from '../core/store.js';
import type { Runtime } from '../runtime/runtime.js';
import {
  type FireOutcome,
  fire,
  type ScheduleParts,
  type ScheduleStatus,
  scheduleNamed,
  scheduleStatus,
  setPaused,
} from './schedules.js';

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

/** What the schedule functions need from an open deck. */
export function scheduleParts(deps: {
  store: EventStore;
  runtime: Runtime;
  schedules: ReadonlyMap<string, Schedule>;
  agents: ReadonlyMap<string, Parameters<Runtime['streamAgent']>[0]>;
  workflows: ReadonlyMap<string, Workflow>;
}): ScheduleParts {
  const { store, runtime, schedules, agents, workflows } = deps;
  return {
    store,
    schedules,
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
          console.error(`[agentdeck] scheduled run '${runId}' failed: ${errorMessage(error)}`);
        }
      })();
    },
  };
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
