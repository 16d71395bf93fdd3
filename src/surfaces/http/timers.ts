/**
 * `POST /timers/tick`: wake the sleeping workflow threads that are due now (or at `now`), for
 * a deployment that prefers an external scheduler to the server's own timers (`serve()` wakes
 * them at their time by itself unless told not to). Two ticks at once never wake a thread twice.
 */
import type { z } from 'zod';
import { InterruptResult } from '../../core/interrupt-result.js';
import type { HttpDeps } from './deps.js';
import { route } from './routes.js';
import { Detail, TickBody, Ticked } from './schemas.js';

export function timerRoutes(deps: HttpDeps) {
  return [
    route<z.infer<typeof TickBody> | undefined>({
      method: 'post',
      path: '/timers/tick',
      role: 'admin',
      control: true,
      summary: 'Wake the sleeping workflow threads that are due',
      description:
        'What `deck.tick()` does, over HTTP: each thread whose `sleepUntil()` time has come is ' +
        'resumed once, and its run continues. For an external scheduler (cron, a Kubernetes ' +
        'CronJob); a served deck also wakes them at their time by itself.',
      tag: 'timers',
      body: {
        schema: TickBody,
        description: 'An optional time to wake what is due at.',
        optional: true,
      },
      responses: {
        200: { description: 'The threads that were due.', schema: Ticked },
        422: { description: 'A time without an offset, or not a time.', schema: Detail },
      },
      async handle({ body }) {
        const outcomes = await deps.deck.tick(body?.now);
        return Response.json({
          woken: outcomes.map((outcome) => ({
            workflow: outcome.workflow,
            thread_id: outcome.threadId,
            run_id: outcome.runId,
            status:
              outcome.error !== null
                ? 'failed'
                : outcome.result instanceof InterruptResult
                  ? 'waiting'
                  : 'completed',
            error: outcome.error,
          })),
        });
      },
    }),
  ];
}
