/**
 * Run control (WIRE.md): `pause` and `cancel` record a request (not a status change);
 * `resume` continues a paused run and answers with its status and the number of events the
 * continuation recorded, or 409 when there is nothing to resume.
 */
import type { z } from 'zod';
import type { HttpDeps } from './deps.js';
import { HttpError, withRunId } from './errors.js';
import { route } from './routes.js';
import { ControlBody, ControlRecorded, Detail, Resumed } from './schemas.js';

export function controlRoutes(deps: HttpDeps) {
  const { deck } = deps;
  const request = (verb: 'pause' | 'cancel') =>
    route<z.infer<typeof ControlBody> | undefined>({
      method: 'post',
      path: `/runs/{run_id}/${verb}`,
      role: 'control',
      summary: `Ask a run to ${verb}`,
      description: 'Records a request and returns at once; a request is not a status change.',
      tag: 'control',
      body: { schema: ControlBody, description: 'An optional reason.', optional: true },
      responses: {
        200: { description: 'The request was recorded.', schema: ControlRecorded },
        404: { description: 'No run by that id.', schema: Detail },
        422: { description: 'A malformed body.', schema: Detail },
      },
      async handle({ params, body }) {
        const runId = params.run_id ?? '';
        const reason = body?.reason ?? null;
        await (verb === 'pause' ? deck.pause(runId, { reason }) : deck.cancel(runId, { reason }));
        return Response.json({ run_id: runId, verb, recorded: true });
      },
    });
  return [
    request('pause'),
    request('cancel'),
    route({
      method: 'post',
      path: '/runs/{run_id}/resume',
      role: 'control',
      summary: 'Continue a paused run',
      tag: 'control',
      responses: {
        200: { description: 'The run was continued.', schema: Resumed, headers: ['X-Run-Id'] },
        409: { description: "Nothing to resume: `run '<id>' is not paused`.", schema: Detail },
      },
      async handle({ params, request: httpRequest }) {
        const runId = params.run_id ?? '';
        const events = await deck.resume(runId, await deps.runContext(httpRequest));
        if (events.length === 0) throw new HttpError(409, `run '${runId}' is not paused`);
        const status = await deck.status(runId);
        return withRunId(Response.json({ run_id: runId, status, events: events.length }), runId);
      },
    }),
  ];
}
