/**
 * Content blocks to the engine's input items. A block the chosen model path cannot
 * express is refused with ConfigError naming it, never silently dropped; resource and data
 * blocks are by design not sent to the model (they stay in the event log).
 */
import type { AgentInputItem } from '@openai/agents-core';
import type { ContentBlock } from '../../../core/blocks.js';
import { ConfigError, InvalidInputError } from '../../../core/errors.js';

/** Which OpenAI API a model speaks, when known. */
export type ModelPath = 'responses' | 'chat_completions' | 'custom';

type UserContent = Extract<AgentInputItem, { role: 'user' }>['content'];
type UserPart = Exclude<UserContent, string>[number];

export function toEngineInput(
  blocks: readonly ContentBlock[],
  path: ModelPath,
  agentName: string,
): string | AgentInputItem[] {
  const first = blocks[0];
  if (blocks.length === 1 && first?.type === 'text') return first.text;
  const content: UserPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        content.push({ type: 'input_text', text: block.text });
        break;
      case 'image':
        content.push({
          type: 'input_image',
          image: `data:${block.mediaType};base64,${block.dataB64}`,
        });
        break;
      case 'audio':
        if (path === 'responses') {
          throw new ConfigError(
            `agent '${agentName}' got an AudioBlock, which the Responses API path cannot express; ` +
              'set OPENAI_USE_RESPONSES=false to use chat completions, or transcribe the audio first',
          );
        }
        content.push({
          type: 'audio',
          audio: block.dataB64,
          format: audioFormat(block.mediaType),
        } as UserPart);
        break;
      case 'resource':
      case 'data':
        break;
    }
  }
  if (content.length === 0) {
    throw new InvalidInputError(
      `agent '${agentName}' got no block the model can read: ResourceBlock and DataBlock are recorded but never sent; add a TextBlock (or an image)`,
    );
  }
  return [{ role: 'user', content }];
}

function audioFormat(mediaType: string): string {
  if (/mpeg|mp3/.test(mediaType)) return 'mp3';
  if (/wav/.test(mediaType)) return 'wav';
  throw new ConfigError(
    `AudioBlock media type '${mediaType}' is not supported by chat completions; use audio/wav or audio/mpeg`,
  );
}
