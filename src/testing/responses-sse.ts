/**
 * OpenAI Responses API wire format for a planned scripted step: the JSON `Response` object and
 * the streaming event sequence (`response.created` … `response.completed`) that the `openai`
 * client and the agents `OpenAIResponsesModel` converter consume.
 */
import type { SseFrame, StepPlan } from './script.js';

/** Request body fields the scripted server echoes back (loosely typed: it is parsed JSON). */
export interface ResponsesRequestBody {
  model?: unknown;
  instructions?: unknown;
  tools?: unknown;
  tool_choice?: unknown;
  parallel_tool_calls?: unknown;
  text?: unknown;
}

const createdAt = () => Math.floor(Date.now() / 1000);

function outputText(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function messageItem(plan: StepPlan, status: 'in_progress' | 'completed') {
  return {
    id: plan.messageId,
    type: 'message',
    role: 'assistant',
    status,
    content: status === 'completed' ? [outputText(plan.text ?? '')] : [],
  };
}

function functionCallItem(call: StepPlan['toolCalls'][number], done: boolean) {
  return {
    id: call.itemId,
    type: 'function_call',
    status: done ? 'completed' : 'in_progress',
    call_id: call.callId,
    name: call.name,
    arguments: done ? call.arguments : '',
  };
}

function outputItems(plan: StepPlan): object[] {
  const items: object[] = [];
  if (plan.text !== undefined) items.push(messageItem(plan, 'completed'));
  for (const call of plan.toolCalls) items.push(functionCallItem(call, true));
  return items;
}

function responseObject(
  plan: StepPlan,
  body: ResponsesRequestBody,
  created: number,
  completed: boolean,
): Record<string, unknown> {
  const { inputTokens, outputTokens, totalTokens } = plan.usage;
  return {
    id: plan.id,
    object: 'response',
    created_at: created,
    status: completed ? 'completed' : 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    model: typeof body.model === 'string' ? body.model : 'scripted',
    output: completed ? outputItems(plan) : [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    text: body.text ?? { format: { type: 'text' } },
    metadata: {},
    usage: completed
      ? {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: totalTokens,
        }
      : null,
  };
}

/** The non-streamed `POST /v1/responses` body for a planned step. */
export function responsesJson(plan: StepPlan, body: ResponsesRequestBody): object {
  return responseObject(plan, body, createdAt(), true);
}

/** The streamed `POST /v1/responses` events for a planned step, in wire order. */
export function responsesFrames(plan: StepPlan, body: ResponsesRequestBody): SseFrame[] {
  const created = createdAt();
  const frames: SseFrame[] = [];
  const emit = (type: string, fields: object, delta = false) => {
    const frame: SseFrame = {
      event: type,
      data: { type, sequence_number: frames.length, ...fields },
    };
    if (delta) frame.delta = true;
    frames.push(frame);
  };
  const inProgress = responseObject(plan, body, created, false);
  emit('response.created', { response: inProgress });
  emit('response.in_progress', { response: inProgress });

  let outputIndex = 0;
  if (plan.text !== undefined) {
    const at = { item_id: plan.messageId, output_index: outputIndex, content_index: 0 };
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: messageItem(plan, 'in_progress'),
    });
    emit('response.content_part.added', { ...at, part: outputText('') });
    for (const delta of plan.chunks) {
      emit('response.output_text.delta', { ...at, delta, logprobs: [] }, true);
    }
    emit('response.output_text.done', { ...at, text: plan.text, logprobs: [] });
    emit('response.content_part.done', { ...at, part: outputText(plan.text) });
    emit('response.output_item.done', {
      output_index: outputIndex,
      item: messageItem(plan, 'completed'),
    });
    outputIndex += 1;
  }
  for (const call of plan.toolCalls) {
    const at = { item_id: call.itemId, output_index: outputIndex };
    emit('response.output_item.added', {
      output_index: outputIndex,
      item: functionCallItem(call, false),
    });
    emit('response.function_call_arguments.delta', { ...at, delta: call.arguments });
    emit('response.function_call_arguments.done', {
      ...at,
      name: call.name,
      arguments: call.arguments,
    });
    emit('response.output_item.done', {
      output_index: outputIndex,
      item: functionCallItem(call, true),
    });
    outputIndex += 1;
  }
  emit('response.completed', { response: responseObject(plan, body, created, true) });
  return frames;
}
