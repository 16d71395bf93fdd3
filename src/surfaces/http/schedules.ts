/**
 * Schedules over HTTP: `GET /schedules` (next and last fire, last run and its status, paused),
 * `POST /schedules/{name}/pause|resume` (kept in the store: every process, across restarts)
 * and `POST /schedules/{name}/trigger` (a run now, paused or not).
 */
import type { HttpDeps } from './deps.js';
import { withRunId } from './errors.js';
import { route } from './routes.js';
import { Detail, Fired, ScheduleList, ScheduleView } from './schemas.js';
import type { ScheduleStatus } from './served-deck.js';

export function scheduleRoutes(deps: HttpDeps) {
  const { deck } = deps;
  const notFound = { description: 'No schedule by that name.', schema: Detail };
  const pauseOrResume = (verb: 'pause' | 'resume') =>
    route({
      method: 'post',
      path: `/schedules/{name}/${verb}`,
      role: 'admin',
      control: true,
      summary:
        verb === 'pause'
          ? 'Stop a schedule firing until resumed'
          : 'Let a paused schedule fire again',
      tag: 'schedules',
      responses: { 200: { description: 'The schedule now.', schema: ScheduleView }, 404: notFound },
      async handle({ params }) {
        const handle = deck.scheduleHandle(params.name ?? '');
        await (verb === 'pause' ? handle.pause() : handle.resume());
        return Response.json(scheduleView(await handle.describe()));
      },
    });
  return [
    route({
      method: 'get',
      path: '/schedules',
      role: 'read',
      summary: "The deck's schedules: next and last fire, last run, paused",
      tag: 'schedules',
      responses: { 200: { description: 'Every schedule, by name.', schema: ScheduleList } },
      async handle() {
        return Response.json({ schedules: (await deck.listSchedules()).map(scheduleView) });
      },
    }),
    pauseOrResume('pause'),
    pauseOrResume('resume'),
    route({
      method: 'post',
      path: '/schedules/{name}/trigger',
      role: 'admin',
      control: true,
      summary: 'Start a schedule’s run now',
      description: 'Paused or not; the overlap policy still applies (`skipped: "overlap"`).',
      tag: 'schedules',
      responses: {
        200: { description: 'What the trigger did.', schema: Fired, headers: ['X-Run-Id'] },
        404: notFound,
      },
      async handle({ params }) {
        const name = params.name ?? '';
        const outcome = await deck.scheduleHandle(name).trigger();
        const runId = 'started' in outcome ? outcome.started : (outcome.runId ?? null);
        const skipped = 'skipped' in outcome ? outcome.skipped : null;
        const answer = Response.json({ schedule: name, run_id: runId, skipped });
        return runId && !skipped ? withRunId(answer, runId) : answer;
      },
    }),
  ];
}

export function scheduleView(status: ScheduleStatus) {
  return {
    name: status.name,
    target: status.target,
    recurrence: status.recurrence,
    timezone: status.timezone,
    paused: status.paused,
    next_fire: status.nextFire,
    last_fire: status.lastFire,
    last_run_id: status.lastRunId,
    last_run_status: status.lastRunStatus,
  };
}
