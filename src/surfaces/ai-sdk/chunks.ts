/**
 * The UI message chunks this surface writes: the part of the AI SDK's UI message stream
 * protocol (v1, as the `ai` package 7.x reads it) that canonical events map to. Declared here,
 * not imported from `ai`, so the service does not depend on the AI SDK at run time;
 * `chunks.test-d.ts` fails to compile if a chunk here stops being a `UIMessageChunk` of `ai`
 * or carries a key that type does not declare.
 */

/** What the `start` and `finish` chunks say of the run behind the assistant message. */
export interface UiMessageMetadata {
  run_id: string;
  /** The run's token and cost totals (on `finish` of a completed run). */
  usage?: {
    requests: number;
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    usd: number | null;
  } | null;
}

export type UiMessageChunk =
  | { type: 'start'; messageId: string; messageMetadata: UiMessageMetadata }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: `data-${string}`; id?: string; data: unknown }
  | {
      type: 'finish';
      finishReason: 'stop' | 'tool-calls' | 'other';
      messageMetadata?: UiMessageMetadata;
    }
  | { type: 'error'; errorText: string }
  | { type: 'abort'; reason?: string };

/** The header that tells a client the response is a UI message stream, and its version. */
export const UI_MESSAGE_STREAM_HEADER = { 'x-vercel-ai-ui-message-stream': 'v1' } as const;

/** The last frame of every stream. */
export const DONE_FRAME = 'data: [DONE]\n\n';

/** The SSE frames of the chunks one canonical event became: each with `id: <seq>`. */
export function chunkFrames(seq: number, chunks: readonly UiMessageChunk[]): string {
  let text = '';
  for (const chunk of chunks) text += `id: ${seq}\ndata: ${JSON.stringify(chunk)}\n\n`;
  return text;
}
