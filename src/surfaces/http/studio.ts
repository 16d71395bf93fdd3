/**
 * What the studio reads (#21), read-only: `GET /catalog` (agents, workflows with their graphs,
 * skills, MCP servers with their live status and tools, schedules; never a secret),
 * `GET /threads/{workflow}/{thread_id}` (a thread's state from its checkpointer) and
 * `GET /sessions/{session_id}` (a conversation's latest history items).
 */
import type { z } from 'zod';
import { type HttpDeps, unknownName } from './deps.js';
import { HttpError } from './errors.js';
import { route } from './routes.js';
import { scheduleView } from './schedules.js';
import { Detail } from './schemas.js';
import type { DeckGrants } from './served-deck.js';
import { Catalog, SessionQuery, SessionView, ThreadStateView } from './studio-schemas.js';

export function studioRoutes(deps: HttpDeps, grants: DeckGrants) {
  const { deck } = deps;
  const notOpen = () => new HttpError(503, `deck '${deck.name}' not started`);
  return [
    route({
      method: 'get',
      path: '/catalog',
      role: 'read',
      summary: 'Everything the service serves, described',
      tag: 'studio',
      responses: { 200: { description: 'The catalog.', schema: Catalog } },
      async handle() {
        const described = grants.catalog?.();
        if (!described) throw notOpen();
        const schedules = (await deck.listSchedules()).map(scheduleView);
        return Response.json({ ...(await described), schedules });
      },
    }),
    route({
      method: 'get',
      path: '/threads/{workflow}/{thread_id}',
      role: 'read',
      summary: "A workflow thread's current state",
      description: 'Read from the checkpointer: its values, the nodes next, what it waits for.',
      tag: 'studio',
      responses: {
        200: { description: "The thread's state.", schema: ThreadStateView },
        404: { description: 'No workflow by that name, or no such thread.', schema: Detail },
      },
      async handle({ params }) {
        const name = params.workflow ?? '';
        const threadId = params.thread_id ?? '';
        if (!deck.workflows.has(name)) throw unknownName('workflow', name, deck.workflows.keys());
        const reading = grants.threadState?.(name, threadId);
        if (!reading) throw notOpen();
        const state = await reading;
        if (!state) throw new HttpError(404, `No thread '${threadId}' of workflow '${name}'.`);
        return Response.json({
          workflow: name,
          thread_id: threadId,
          values: state.values,
          next: state.next,
          waiting: state.waiting.map((w) => ({ id: w.id, payload: w.payload, wake_at: w.wakeAt })),
          updated_at: state.updatedAt,
        });
      },
    }),
    route<undefined, z.infer<typeof SessionQuery>>({
      method: 'get',
      path: '/sessions/{session_id}',
      role: 'read',
      summary: "A conversation's history",
      description:
        'The latest `limit` items of the session, oldest first (an empty list for a new one).',
      tag: 'studio',
      query: SessionQuery,
      responses: { 200: { description: 'The history.', schema: SessionView } },
      async handle({ params, query }) {
        const sessionId = params.session_id ?? '';
        const reading = grants.sessionItems?.(sessionId, query.limit);
        if (!reading) throw notOpen();
        return Response.json({ session_id: sessionId, items: await reading });
      },
    }),
  ];
}
