/**
 * What `DefaultChatTransport` posts (`{id, messages, trigger, messageId}` plus the fields of
 * its `body` option) and what the service takes from it. The service keeps the conversation,
 * so of the messages only the last one counts: a user message is the new input (its text
 * parts, and its file parts as content blocks), an assistant message with tool calls in the
 * state `approval-responded` answers the call its run holds. Everything else the client sends
 * back (earlier messages, part states it computed) is read by nobody, so it cannot rewrite
 * what was said.
 */
import { z } from 'zod';
import {
  AudioBlock,
  type ContentBlock,
  ImageBlock,
  ResourceBlock,
  TextBlock,
} from '../../core/blocks.js';
import { idProblem } from '../../core/ids.js';
import { HttpError } from '../http/errors.js';

const UiPart = z.looseObject({ type: z.string() });

const UiMessage = z
  .looseObject({
    id: z.string(),
    role: z.enum(['system', 'user', 'assistant']),
    parts: z.array(UiPart),
    metadata: z.unknown().optional(),
  })
  .meta({ id: 'UiMessage' });

/** The transport's request body; extra fields of its `body` option pass through. */
export const UiChatBody = z
  .looseObject({
    id: z.string().describe("The chat's id: the agent's session (a workflow's thread)."),
    messages: z.array(UiMessage).describe('The chat so far; only the last message is read.'),
    trigger: z
      .enum(['submit-message', 'regenerate-message'])
      .default('submit-message')
      .describe('`regenerate-message` takes the last answer out of the session and answers again.'),
    messageId: z.string().optional(),
  })
  .meta({ id: 'UiChatBody' });
export type UiChatBody = z.infer<typeof UiChatBody>;

/** `POST /workflows/{name}/ui-chat`: the chat id is the thread, `state` the initial state. */
export const UiWorkflowBody = z
  .looseObject({
    id: z.string().describe("The chat's id: the workflow's thread."),
    messages: z.array(UiMessage).optional(),
    trigger: z.string().optional(),
    messageId: z.string().optional(),
    state: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The workflow's initial state (the transport's `body` option sends it)."),
  })
  .meta({ id: 'UiWorkflowBody' });
export type UiWorkflowBody = z.infer<typeof UiWorkflowBody>;

type UiMessage = z.infer<typeof UiMessage>;

/** The chat id as a session or thread id, checked as the other routes check ids. */
export function chatIdOf(id: string): string {
  const problem = idProblem(id);
  if (problem !== null) throw new HttpError(422, `body field 'id' (the chat id): ${problem}`);
  return id;
}

/** A person's answer to a held tool call, as the client's tool part carries it. */
export interface ApprovalResponse {
  toolCallId: string;
  approved: boolean;
  reason: string | null;
}

/** What the last message asks for: a new turn with this input, or answers to held calls. */
export type UiChatRequest =
  | { kind: 'turn'; input: string | ContentBlock[] }
  | { kind: 'approval'; messageId: string; runId: string | null; answers: ApprovalResponse[] };

export function readLastMessage(messages: readonly UiMessage[]): UiChatRequest {
  const last = messages.at(-1);
  if (!last) throw new HttpError(422, "body field 'messages' is empty: send the user's message");
  if (last.role === 'assistant') {
    const answers = last.parts.flatMap((part) => approvalOf(part));
    if (answers.length === 0) {
      throw new HttpError(
        422,
        "the last message is the assistant's and answers no tool call: send a user message, or answer a call with addToolApprovalResponse",
      );
    }
    const runId = (last.metadata as { run_id?: unknown } | undefined)?.run_id;
    return {
      kind: 'approval',
      messageId: last.id,
      runId: typeof runId === 'string' ? runId : null,
      answers,
    };
  }
  if (last.role !== 'user') {
    throw new HttpError(422, `the last message has role '${last.role}': send a user message`);
  }
  return { kind: 'turn', input: inputOf(last) };
}

function approvalOf(part: z.infer<typeof UiPart>): ApprovalResponse[] {
  const tool = part as {
    state?: unknown;
    toolCallId?: unknown;
    approval?: { approved?: unknown; reason?: unknown };
  };
  if (!part.type.startsWith('tool-') && part.type !== 'dynamic-tool') return [];
  if (tool.state !== 'approval-responded' || typeof tool.toolCallId !== 'string') return [];
  if (typeof tool.approval?.approved !== 'boolean') {
    throw new HttpError(
      422,
      `tool call '${tool.toolCallId}' is approval-responded without a boolean approval.approved`,
    );
  }
  const reason = tool.approval.reason;
  return [
    {
      toolCallId: tool.toolCallId,
      approved: tool.approval.approved,
      reason: typeof reason === 'string' && reason !== '' ? reason : null,
    },
  ];
}

/** A user message as agent input: its text, or blocks when it carries files. */
function inputOf(message: UiMessage): string | ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const [index, part] of message.parts.entries()) {
    const field = `messages[-1].parts[${index}]`;
    if (part.type === 'text') {
      const text = (part as { text?: unknown }).text;
      if (typeof text !== 'string') throw new HttpError(422, `${field}.text must be a string`);
      blocks.push(new TextBlock(text));
    } else if (part.type === 'file') {
      blocks.push(fileBlock(part as { url?: unknown; mediaType?: unknown }, field));
    }
    // Other parts (step markers, data parts a client echoes back) are not input.
  }
  if (blocks.length === 0) {
    throw new HttpError(422, 'the last user message has no text or file part: nothing to answer');
  }
  const onlyText = blocks.every((block) => block.type === 'text');
  return onlyText ? blocks.map((block) => (block as TextBlock).text).join('\n') : blocks;
}

/**
 * A file part as a block: a `data:` URL of an image or audio inline (1 MiB at most), an
 * `http(s):` URL as a resource the model is given by reference.
 */
function fileBlock(part: { url?: unknown; mediaType?: unknown }, field: string): ContentBlock {
  const { url, mediaType } = part;
  if (typeof url !== 'string' || typeof mediaType !== 'string') {
    throw new HttpError(422, `${field}: a file part needs a string url and mediaType`);
  }
  const inline = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (inline) {
    if (!inline[2]) throw new HttpError(422, `${field}: a data: URL must be base64`);
    const dataB64 = inline[3] ?? '';
    if (mediaType.startsWith('image/')) return new ImageBlock({ mediaType, dataB64 });
    if (mediaType.startsWith('audio/')) return new AudioBlock({ mediaType, dataB64 });
    throw new HttpError(
      422,
      `${field}: a ${mediaType} file can be sent inline only as an image or audio; send its http(s) URL instead`,
    );
  }
  if (/^https?:\/\//.test(url)) return new ResourceBlock({ uri: url, mediaType });
  throw new HttpError(422, `${field}: the url must be a data: URL or an http(s) URL`);
}
