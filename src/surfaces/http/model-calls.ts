/**
 * What the model saw (#41), over HTTP: `GET /runs/{run_id}/model-calls` returns each model
 * request of a run rebuilt whole (its values resolved from the run's earlier events, see
 * `core/model-calls.ts`) with its response, for the trace view and for anyone who wants a
 * request as it was sent. Same role as reading a run's events.
 */
import { z } from 'zod';
import { type ModelCall, modelCallsOf } from '../../core/model-calls.js';
import type { HttpDeps } from './deps.js';
import { HttpError } from './errors.js';
import { route } from './routes.js';
import { Detail } from './schemas.js';

const ModelCallView = z
  .object({
    call_id: z.string(),
    model: z.string().nullable(),
    settings: z
      .record(z.string(), z.unknown())
      .describe('The settings sent (temperature, max tokens, tool choice...).'),
    detail: z
      .enum(['full', 'metadata'])
      .describe(
        '`metadata`: recorded without bodies (instructions, tools, messages, output null).',
      ),
    instructions: z.unknown().describe('The instructions sent, null without them.'),
    tools: z.array(z.unknown()).describe('The tool definitions offered, as sent.'),
    messages: z.array(z.unknown()).describe('The input items sent, history included.'),
    output: z.array(z.unknown()).nullable().describe('The output items received.'),
    finish_reason: z.string().nullable(),
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    latency_ms: z.number().nullable(),
    provider_request_id: z.string().nullable().describe("The provider's `x-request-id`."),
    error: z.string().nullable().describe("The request's error message when it failed."),
    started_at: z.string(),
    ended_at: z.string().nullable().describe('Null while the request is made.'),
  })
  .meta({ id: 'ModelCall', description: 'One model request of a run, whole, with its response.' });

const ModelCallList = z
  .object({ model_calls: z.array(ModelCallView) })
  .meta({ id: 'ModelCallList', description: "A run's model requests, in order." });

export function modelCallRoutes(deps: HttpDeps) {
  return [
    route({
      method: 'get',
      path: '/runs/{run_id}/model-calls',
      role: 'read',
      summary: "A run's model requests, each rebuilt whole, with its response",
      description:
        'Each request an agent turn sent to its model (the messages after the history policy, ' +
        'the instructions, the tools offered, the model and its settings) and what came back ' +
        '(output items, finish reason, tokens, latency, the provider request id, or the error). ' +
        'Recorded as `model.call.started` / `model.call.completed` events under ' +
        '`SERVICE_RECORD_MODEL_CALLS`; empty for a run recorded without them.',
      tag: 'runs',
      responses: {
        200: { description: "The run's model requests.", schema: ModelCallList },
        404: { description: 'No run by that id.', schema: Detail },
      },
      async handle({ params }) {
        const runId = params.run_id ?? '';
        const run = await deps.eventLog().getRun(runId);
        if (!run) throw new HttpError(404, `No run '${runId}'.`);
        const calls = modelCallsOf(await deps.eventLog().read(run.runId));
        return Response.json({ model_calls: calls.map(modelCallView) });
      },
    }),
  ];
}

function modelCallView(call: ModelCall): z.infer<typeof ModelCallView> {
  return {
    call_id: call.callId,
    model: call.model,
    settings: call.settings,
    detail: call.detail,
    instructions: call.instructions,
    tools: call.tools,
    messages: call.messages,
    output: call.output,
    finish_reason: call.finishReason,
    input_tokens: call.inputTokens,
    output_tokens: call.outputTokens,
    latency_ms: call.latencyMs,
    provider_request_id: call.providerRequestId,
    error: call.error,
    started_at: call.startedAt,
    ended_at: call.endedAt,
  };
}
