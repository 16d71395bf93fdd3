/**
 * Background runs over HTTP (#40, additive): `POST /runs` queues a run of an agent or a
 * workflow and answers 202 at once with its id and a `Location` to `GET /runs/{run_id}`; a
 * worker of any process sharing the event store plays it, and its events stream from
 * `GET /runs/{run_id}/events` as any run's do. A new route rather than `?background=true`
 * on the start routes: those answer in 1.2.1's exact bodies (a reply, a final state), and a
 * queued run has none yet. Checked as those routes check (the name, the input against its
 * schema, a session another tenant uses) before anything is queued. Docs: docs/background-runs.md.
 */
import { z } from 'zod';
import type { HttpDeps } from './deps.js';
import { HttpError } from './errors.js';
import { route } from './routes.js';
import { definedOnly } from './runs.js';
import { callerId, Detail, ID_LIMIT } from './schemas.js';

export const EnqueueBody = z
  .object({
    agent: z.string().min(1).optional().describe('The agent to run (or `workflow`).'),
    workflow: z.string().min(1).optional().describe('The workflow to run (or `agent`).'),
    input: z
      .unknown()
      .refine((v) => v !== undefined, 'required')
      .describe("An agent's message (a string), or a workflow's initial state (an object)."),
    session_id: callerId().optional().describe(`An agent's conversation. ${ID_LIMIT}`),
    thread_id: callerId()
      .optional()
      .describe(`A workflow's thread (required for a durable workflow). ${ID_LIMIT}`),
    priority: z
      .number()
      .int()
      .min(-1000)
      .max(1000)
      .optional()
      .describe('Higher runs first, from -1000 to 1000. Default 0.'),
    key: callerId()
      .min(1)
      .optional()
      .describe(
        "The key its limits and fair turns count under (a user, a customer). Default: the caller's tenant, else `default`.",
      ),
    multitask: z
      .enum(['reject', 'enqueue', 'interrupt', 'rollback'])
      .optional()
      .describe(
        'When its session or thread is busy: `reject` (409, the default), `enqueue` (after the ' +
          'run there), `interrupt` (cancel it first), `rollback` (cancel it and take its ' +
          "unfinished turn out of the agent's session).",
      ),
  })
  // Strict: a misspelt field (`sesion_id`) would otherwise queue a run without it, silently.
  .strict()
  .meta({ id: 'EnqueueBody' });

export const QueuedRunBody = z
  .object({
    run_id: z.string(),
    status: z.literal('queued'),
    key: z.string(),
    priority: z.number().int(),
  })
  .meta({ id: 'QueuedRun', description: 'A run put in the queue.' });

export function backgroundRoutes(deps: HttpDeps) {
  return [
    route<z.infer<typeof EnqueueBody>>({
      method: 'post',
      path: '/runs',
      role: 'run',
      summary: 'Queue a background run of an agent or a workflow',
      description:
        'Answers 202 at once; a worker in any process sharing the event store plays the run. ' +
        'Follow it with `GET /runs/{run_id}` (its status, its place in the queue) or ' +
        '`GET /runs/{run_id}/events`; cancel it with `POST /runs/{run_id}/cancel`.',
      tag: 'runs',
      body: { schema: EnqueueBody, description: 'What to run, where, and how it waits.' },
      responses: {
        202: { description: 'Queued.', schema: QueuedRunBody, headers: ['Location'] },
        404: { description: 'No agent or workflow by that name.', schema: Detail },
        409: {
          description: 'Its session or thread is busy (`multitask: reject`).',
          schema: Detail,
        },
        422: { description: 'A malformed body, or an input its schema refuses.', schema: Detail },
      },
      async handle({ body }) {
        const { agent, workflow, input, session_id, thread_id, ...rest } = body;
        if ((agent === undefined) === (workflow === undefined)) {
          throw new HttpError(422, "name exactly one of 'agent' and 'workflow'.");
        }
        const name = (agent ?? workflow) as string;
        if (agent !== undefined ? deps.deck.workflows.has(name) : deps.deck.agents.has(name)) {
          const is = agent !== undefined ? 'a workflow' : 'an agent';
          throw new HttpError(
            422,
            `'${name}' is ${is}: name it as '${agent !== undefined ? 'workflow' : 'agent'}'.`,
          );
        }
        if (agent !== undefined && thread_id !== undefined) {
          throw new HttpError(422, "an agent run takes 'session_id', not 'thread_id'.");
        }
        if (workflow !== undefined && session_id !== undefined) {
          throw new HttpError(422, "a workflow run takes 'thread_id', not 'session_id'.");
        }
        const sessionId = session_id ?? thread_id;
        const queued = await deps.deck.enqueue(name, input, {
          ...(sessionId !== undefined ? { sessionId } : {}),
          ...definedOnly(rest),
        });
        return Response.json(
          {
            run_id: queued.runId,
            status: queued.status,
            key: queued.key,
            priority: queued.priority,
          },
          { status: 202, headers: { location: `/runs/${encodeURIComponent(queued.runId)}` } },
        );
      },
    }),
  ];
}
