/**
 * OpenAI Chat Completions wire format for a planned scripted step: the JSON `chat.completion`
 * and the `chat.completion.chunk` stream (ending in `[DONE]`) that the `openai` client and the
 * agents `OpenAIChatCompletionsModel` stream converter consume.
 */
import type { SseFrame, StepPlan } from './script.js';

/** Request body fields the scripted server reads (loosely typed: it is parsed JSON). */
export interface ChatRequestBody {
  model?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

const createdAt = () => Math.floor(Date.now() / 1000);

function chatUsage(plan: StepPlan) {
  return {
    prompt_tokens: plan.usage.inputTokens,
    completion_tokens: plan.usage.outputTokens,
    total_tokens: plan.usage.totalTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

const finishReason = (plan: StepPlan) => (plan.toolCalls.length > 0 ? 'tool_calls' : 'stop');

/** Chat completion ids look like `chatcmpl-…`; reuse the planned response id's number. */
const completionId = (plan: StepPlan) => plan.id.replace(/^resp_/, 'chatcmpl-');

const modelName = (body: ChatRequestBody) =>
  typeof body.model === 'string' ? body.model : 'scripted';

/** The non-streamed `POST /v1/chat/completions` body for a planned step. */
export function chatJson(plan: StepPlan, body: ChatRequestBody): object {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.text ?? null,
    refusal: null,
  };
  if (plan.toolCalls.length > 0) {
    message.tool_calls = plan.toolCalls.map((call) => ({
      id: call.callId,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: completionId(plan),
    object: 'chat.completion',
    created: createdAt(),
    model: modelName(body),
    system_fingerprint: null,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(plan) }],
    usage: chatUsage(plan),
  };
}

/** The streamed `POST /v1/chat/completions` frames for a planned step, ending in `[DONE]`. */
export function chatFrames(plan: StepPlan, body: ChatRequestBody): SseFrame[] {
  const base = {
    id: completionId(plan),
    object: 'chat.completion.chunk',
    created: createdAt(),
    model: modelName(body),
    system_fingerprint: null,
  };
  const chunk = (delta: object, finish: string | null = null): SseFrame => ({
    data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] },
  });
  const frames: SseFrame[] = [chunk({ role: 'assistant', content: '' })];
  for (const text of plan.chunks) frames.push({ ...chunk({ content: text }), delta: true });
  for (const [index, call] of plan.toolCalls.entries()) {
    frames.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.callId,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }),
    );
  }
  frames.push(chunk({}, finishReason(plan)));
  if (body.stream_options?.include_usage === true) {
    frames.push({ data: { ...base, choices: [], usage: chatUsage(plan) } });
  }
  frames.push({ data: '[DONE]' });
  return frames;
}
