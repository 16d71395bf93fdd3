/**
 * The zod schemas of the OpenAI surface's bodies: what `/v1` reads of a request (unknown
 * fields, such as `temperature`, are accepted and ignored: the agent's own model settings
 * apply) and, for `/openapi.json`, the shape of its answers. Bodies are checked by the HTTP
 * surface's `mount()`; a wrong field is a 400 naming it (`errors.ts`).
 */
import { z } from 'zod';
import { idProblem, MAX_ID_BYTES } from '../../core/ids.js';

function sessionId() {
  return z
    .string()
    .superRefine((value, ctx) => {
      const problem = idProblem(value);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(
      'agentdeck: keep the conversation in this session (the `X-Session-Id` header does the same); ' +
        `only the last user message is new. At most ${MAX_ID_BYTES} bytes (UTF-8), no NUL character.`,
    );
}

const ContentPart = z
  .object({ type: z.string(), text: z.string().optional() })
  .loose()
  .describe('A part of a message; only text parts are read.');

const Content = z.union([z.string(), z.array(ContentPart), z.null()]);

export const ChatMessage = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: Content.optional(),
  })
  .loose();

export const ChatCompletionRequest = z
  .object({
    model: z.string().describe("The agent's name (`GET /v1/models` lists them)."),
    messages: z
      .array(ChatMessage)
      .min(1)
      .describe(
        'The conversation, the last one the new user message. System and developer messages are ' +
          "added to the agent's instructions; the earlier user and assistant messages are the " +
          'history (without a session; nothing is stored).',
      ),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .object({ include_usage: z.boolean().nullable().optional() })
      .loose()
      .nullable()
      .optional(),
    session_id: sessionId().optional(),
    tools: z
      .unknown()
      .optional()
      .describe("Refused (400): the agent's own tools run inside the service."),
  })
  .loose()
  .meta({ id: 'ChatCompletionRequest' });

const InputItem = z
  .object({
    type: z.string().optional(),
    role: z.string().optional(),
    content: Content.optional(),
  })
  .loose();

export const ResponseRequest = z
  .object({
    model: z.string().describe("The agent's name (`GET /v1/models` lists them)."),
    input: z
      .union([z.string(), z.array(InputItem).min(1)])
      .describe(
        'The new user message, or message items: the last one the new user message, the earlier ' +
          "ones its history; system and developer items are added to the agent's instructions.",
      ),
    instructions: z
      .string()
      .nullable()
      .optional()
      .describe("Added after the agent's own instructions, never replacing them."),
    previous_response_id: z
      .string()
      .nullable()
      .optional()
      .describe('Continue the conversation of that response (its session).'),
    store: z
      .boolean()
      .nullable()
      .optional()
      .describe('`false`: keep nothing, so the response cannot be continued. @default true'),
    stream: z.boolean().nullable().optional(),
    session_id: sessionId().optional(),
    tools: z
      .unknown()
      .optional()
      .describe("Refused (400): the agent's own tools run inside the service."),
  })
  .loose()
  .meta({ id: 'ResponseRequest' });

export const OpenAiErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: z.string().nullable(),
    }),
  })
  .meta({ id: 'OpenAiError', description: "Every `/v1` error, in the OpenAI API's shape." });

export const Model = z
  .object({
    id: z.string().describe("The agent's name."),
    object: z.literal('model'),
    created: z.number().int(),
    owned_by: z.literal('agentdeck'),
  })
  .meta({ id: 'Model', description: 'An agent, as a model.' });

export const ModelList = z
  .object({
    object: z.literal('list'),
    data: z.array(Model),
  })
  .meta({ id: 'ModelList', description: 'The agents, as models.' });

export const ChatCompletionAnswer = z
  .object({
    id: z.string().describe('`chatcmpl-<run id>`.'),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal('assistant'), content: z.string() }).loose(),
        finish_reason: z.string(),
      }),
    ),
    usage: z.object({
      prompt_tokens: z.number().int(),
      completion_tokens: z.number().int(),
      total_tokens: z.number().int(),
    }),
  })
  .loose()
  .meta({ id: 'ChatCompletion' });

export const ResponseAnswer = z
  .object({
    id: z.string().describe('`resp_<run id>`.'),
    object: z.literal('response'),
    status: z.enum(['completed', 'incomplete', 'failed', 'in_progress']),
    model: z.string(),
    output: z.array(z.unknown()),
    output_text: z.string(),
  })
  .loose()
  .meta({ id: 'Response' });
