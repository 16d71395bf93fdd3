/**
 * Try a change on a recorded run (#41): replay an agent turn with a variant
 * (`POST /runs/{run_id}/replay`), list a durable workflow thread's checkpoints (`GET
 * /workflows/{name}/threads/{thread_id}/checkpoints`) and fork the thread from one of them,
 * its state maybe edited (`POST /workflows/{name}/threads/{thread_id}/fork`). Each new run is
 * an ordinary recorded run, linked to its source by `run.started`'s `derived_from`. A failed
 * replay or fork answers 200 with `status: "failed"` and its `run_id`: its error is on its
 * run's page, never in this body. Tested in src/surfaces/http/replays.test.ts.
 */
import { z } from 'zod';
import { isInterrupt } from '../../core/interrupt-result.js';
import type { HttpDeps } from './deps.js';
import { withRunId } from './errors.js';
import { route } from './routes.js';
import { Detail, Interrupt } from './schemas.js';

const DerivedFromBody = z
  .object({
    run: z.string().describe('The source run.'),
    how: z.enum(['replay', 'fork', 'rerun']),
    thread: z.string().optional().describe('The source thread (a fork or a re-run).'),
    checkpoint: z.string().optional().describe('The checkpoint a fork starts from.'),
    changes: z.unknown().optional().describe("A replay's variant, a fork's state edit."),
  })
  .meta({ id: 'DerivedFrom', description: 'The recorded run a new run tries a change on.' });

const ReplayBody = z
  .object({
    variant: z
      .object({
        model: z.string().min(1).optional().describe('Another model name.'),
        instructions: z.string().optional().describe("Instructions replacing the agent's own."),
        model_settings: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('Model settings merged over the agent\'s own, e.g. `{"temperature": 0}`.'),
      })
      .strict()
      .optional(),
  })
  .strict()
  .meta({ id: 'ReplayRequest' });

const ReplayAnswer = z
  .object({
    run_id: z.string(),
    session_id: z
      .string()
      .nullable()
      .describe("The replay's own session (the source's is untouched)."),
    status: z.string(),
    output: z.unknown().describe('The final text or structured output; `null` unless completed.'),
    derived_from: DerivedFromBody,
    history: z
      .enum(['model-request', 'event-log', 'none'])
      .describe('Where the history sent before the turn came from.'),
    interrupt: Interrupt.optional(),
  })
  .meta({ id: 'ReplayAnswer' });

const Checkpoint = z
  .object({
    id: z.string(),
    step: z.number(),
    written_by: z.array(z.string()).describe('The nodes whose step wrote it; `[]` for the first.'),
    next: z.array(z.string()).describe('The nodes that run from it; `[]` where the thread ended.'),
    created_at: z.string(),
    values: z.record(z.string(), z.unknown()).describe("The state's values at this checkpoint."),
  })
  .meta({ id: 'Checkpoint' });

const ForkBody = z
  .object({
    checkpoint_id: z.string().optional().describe('Where to start from; default the latest.'),
    state: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Fields written over the checkpoint's state; absent: a re-run."),
    thread_id: z.string().optional().describe('The new thread id; default `<thread>~fork-<hex>`.'),
  })
  .strict()
  .meta({ id: 'ForkRequest' });

const ForkAnswer = z
  .object({
    thread_id: z.string(),
    run_id: z.string(),
    status: z.string(),
    state: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The final state, when completed.'),
    interrupt: Interrupt.optional(),
    derived_from: DerivedFromBody,
  })
  .meta({ id: 'ForkAnswer' });

const notFound = { description: 'No such run, workflow, thread or checkpoint.', schema: Detail };

export function replayRoutes(deps: HttpDeps) {
  const { deck } = deps;
  return [
    route<z.infer<typeof ReplayBody>>({
      method: 'post',
      path: '/runs/{run_id}/replay',
      role: 'run',
      summary: 'Replay an agent turn with another model, instructions or settings',
      description:
        "Plays the run's input again as a new run of the same agent with the variant, on a " +
        "new session seeded with the conversation before the turn; the source's session is " +
        'untouched. Its tools run again.',
      tag: 'runs',
      body: { schema: ReplayBody, description: 'The variant.', optional: true },
      responses: {
        200: {
          description: 'The replay, once it stopped.',
          schema: ReplayAnswer,
          headers: ['X-Run-Id'],
        },
        404: notFound,
        409: { description: 'The run has not ended yet.', schema: Detail },
        422: { description: 'A workflow run (fork it instead), or a bad variant.', schema: Detail },
      },
      async handle({ params, body, request }) {
        const variant = body?.variant;
        const replay = await deck.replay(params.run_id ?? '', {
          ...(await deps.runContext(request)),
          ...(variant
            ? {
                variant: {
                  ...(variant.model !== undefined ? { model: variant.model } : {}),
                  ...(variant.instructions !== undefined
                    ? { instructions: variant.instructions }
                    : {}),
                  ...(variant.model_settings ? { modelSettings: variant.model_settings } : {}),
                },
              }
            : {}),
        });
        const answer = {
          run_id: replay.runId,
          session_id: replay.sessionId,
          status: replay.status,
          output: replay.output,
          derived_from: replay.derivedFrom,
          history: replay.history,
          ...(replay.interrupt ? { interrupt: interruptOf(replay.interrupt) } : {}),
        };
        return withRunId(Response.json(answer), replay.runId);
      },
    }),
    route({
      method: 'get',
      path: '/workflows/{name}/threads/{thread_id}/checkpoints',
      role: 'read',
      summary: "A durable workflow thread's checkpoints, newest first",
      tag: 'workflows',
      responses: {
        200: {
          description: 'Its checkpoints.',
          schema: z.object({ checkpoints: z.array(Checkpoint) }),
        },
        404: notFound,
        409: {
          description: 'The workflow is not durable: it keeps no checkpoints.',
          schema: Detail,
        },
      },
      async handle({ params }) {
        const listed = await deck.checkpoints(params.name ?? '', params.thread_id ?? '');
        return Response.json({
          checkpoints: listed.map((c) => ({
            id: c.id,
            step: c.step,
            written_by: c.writtenBy,
            next: c.next,
            created_at: c.createdAt,
            values: c.values,
          })),
        });
      },
    }),
    route<z.infer<typeof ForkBody>>({
      method: 'post',
      path: '/workflows/{name}/threads/{thread_id}/fork',
      role: 'run',
      summary: 'Fork a thread from a checkpoint, its state maybe edited, and play it on',
      description:
        'Copies the checkpoint to a new thread (the original is untouched), writes `state` over ' +
        "it through the state's reducers, and plays on to the end or the next interrupt. " +
        'Without `state`, a re-run from there.',
      tag: 'workflows',
      body: { schema: ForkBody, description: 'Where to fork from, and the edit.', optional: true },
      responses: {
        200: {
          description: "The new thread's run, once it stopped.",
          schema: ForkAnswer,
          headers: ['X-Run-Id'],
        },
        404: notFound,
        409: {
          description: 'The workflow is not durable, or the new thread id is in use.',
          schema: Detail,
        },
        422: {
          description:
            'A state edit the state schema refuses, or a checkpoint where the thread ended.',
          schema: Detail,
        },
      },
      async handle({ params, body, request }) {
        const fork = await deck.fork(params.name ?? '', params.thread_id ?? '', {
          ...(await deps.runContext(request)),
          ...(body?.checkpoint_id !== undefined ? { checkpointId: body.checkpoint_id } : {}),
          ...(body?.state !== undefined ? { state: body.state } : {}),
          ...(body?.thread_id !== undefined ? { threadId: body.thread_id } : {}),
        });
        const answer = {
          thread_id: fork.threadId,
          run_id: fork.runId,
          status: fork.status,
          ...(fork.state !== undefined ? { state: fork.state } : {}),
          ...(fork.interrupt ? { interrupt: interruptOf(fork.interrupt) } : {}),
          derived_from: fork.derivedFrom,
        };
        return withRunId(Response.json(answer), fork.runId);
      },
    }),
  ];
}

function interruptOf(result: unknown) {
  if (!isInterrupt(result)) return undefined;
  return { type: 'interrupt' as const, payload: result.payload, thread_id: result.threadId };
}
