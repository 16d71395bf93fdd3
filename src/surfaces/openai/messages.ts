/**
 * An OpenAI request's messages as an agent turn: the new message (the last one, the
 * user's), the history before it (earlier user and assistant messages) and the text added
 * to the agent's instructions (system and developer messages). Only text is read; a part
 * or a role the turn cannot take is a 400 naming where it is (`messages[2].content[0]`),
 * never silently dropped.
 */
import type { HistoryMessage } from '../../runtime/agent-engine.js';
import { OpenAiError } from './errors.js';

export interface TurnMessages {
  message: string;
  history: HistoryMessage[];
  /** System and developer messages joined, or `undefined` when there were none. */
  instructions: string | undefined;
}

interface AnyMessage {
  type?: string | undefined;
  role?: string | undefined;
  content?: string | { type: string; text?: string | undefined }[] | null | undefined;
}

/** The text of a message's content (a string, or its text parts joined). */
function textOf(content: AnyMessage['content'], where: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, i) => {
      if (typeof part.text === 'string' && /^(text|input_text|output_text)$/.test(part.type)) {
        return part.text;
      }
      throw new OpenAiError(
        400,
        `${where}.content[${i}] is a '${part.type}' part; an agent takes text only: send its text as a text part`,
        `${where}.content[${i}]`,
      );
    })
    .join('');
}

/**
 * Split `messages` (`param` names them: `messages`, `input`) into a turn. The last message
 * must be the user's.
 */
export function turnMessages(
  messages: readonly AnyMessage[],
  param: 'messages' | 'input',
  extraInstructions: string | null = null,
): TurnMessages {
  const history: HistoryMessage[] = [];
  const instructions: string[] = extraInstructions ? [extraInstructions] : [];
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last?.role !== 'user') {
    throw new OpenAiError(
      400,
      `the last of ${param} must be the user's message (role 'user'), got ${last?.role ? `role '${last.role}'` : 'an item without a role'}`,
      `${param}[${lastIndex}]`,
    );
  }
  for (const [i, item] of messages.slice(0, -1).entries()) {
    const where = `${param}[${i}]`;
    if (item.type !== undefined && item.type !== 'message') {
      throw new OpenAiError(
        400,
        `${where} is a '${item.type}' item; an agent takes messages only (its own tools run inside the service)`,
        where,
      );
    }
    const text = textOf(item.content, where);
    if (item.role === 'system' || item.role === 'developer') instructions.push(text);
    else if (item.role === 'user' || item.role === 'assistant') {
      history.push({ role: item.role, text });
    } else {
      throw new OpenAiError(
        400,
        `${where} has role '${item.role}'; an agent's history takes system, developer, user and assistant messages (its own tools run inside the service)`,
        `${where}.role`,
      );
    }
  }
  return {
    message: textOf(last.content, `${param}[${lastIndex}]`),
    history,
    instructions: instructions.length > 0 ? instructions.join('\n\n') : undefined,
  };
}

/** Refuse a request's own tools: the agent's tools run inside the service. */
export function refuseTools(body: { tools?: unknown; functions?: unknown }): void {
  for (const field of ['tools', 'functions'] as const) {
    const value = body[field];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
      continue;
    }
    throw new OpenAiError(
      400,
      `'${field}' is not accepted: the agent runs its own tools inside the service; send the request without '${field}'`,
      field,
    );
  }
}
