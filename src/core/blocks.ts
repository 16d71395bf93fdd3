/**
 * Content blocks: what an agent turn takes as input and what runs record as output.
 * Inline blocks (image, audio, data) are limited to 1 MiB decoded each and are refused when
 * constructed, so an oversized payload never reaches the model or the event log. Larger
 * content belongs in a ResourceBlock, which references bytes held elsewhere.
 */
import { BlockTooLargeError, InvalidInputError } from './errors.js';

/** Largest inline block, in decoded bytes (1 MiB). */
export const INLINE_BLOCK_LIMIT_BYTES = 1024 * 1024;

export class TextBlock {
  readonly type = 'text' as const;
  constructor(readonly text: string) {
    if (typeof text !== 'string') throw new InvalidInputError('TextBlock.text must be a string');
  }
}

/** Base of the inline media blocks: base64 bytes with a media type, size-checked. */
abstract class InlineMediaBlock {
  readonly mediaType: string;
  readonly dataB64: string;
  protected constructor(blockType: string, fields: { mediaType: string; dataB64: string }) {
    this.mediaType = fields.mediaType;
    this.dataB64 = fields.dataB64;
    checkInline(blockType, base64DecodedBytes(fields.dataB64));
  }
}

export class ImageBlock extends InlineMediaBlock {
  readonly type = 'image' as const;
  constructor(fields: { mediaType: string; dataB64: string }) {
    super('ImageBlock', fields);
  }
}

export class AudioBlock extends InlineMediaBlock {
  readonly type = 'audio' as const;
  constructor(fields: { mediaType: string; dataB64: string }) {
    super('AudioBlock', fields);
  }
}

/** A reference to content held elsewhere; its bytes are never carried inline. */
export class ResourceBlock {
  readonly type = 'resource' as const;
  readonly uri: string;
  readonly mediaType: string;
  constructor(fields: { uri: string; mediaType: string }) {
    this.uri = fields.uri;
    this.mediaType = fields.mediaType;
  }
}

/** A JSON value: structured results and workflow state. */
export class DataBlock {
  readonly type = 'data' as const;
  constructor(readonly data: unknown) {
    const json = JSON.stringify(data ?? null);
    checkInline('DataBlock', Buffer.byteLength(json, 'utf8'));
  }
}

export type ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceBlock | DataBlock;

/** What an agent turn accepts: a string (one TextBlock) or a list of blocks. */
export type AgentInput = string | readonly ContentBlock[];

/** Normalize agent input to a list of blocks; a string becomes one TextBlock. */
export function toBlocks(input: AgentInput): ContentBlock[] {
  if (typeof input === 'string') return [new TextBlock(input)];
  if (!Array.isArray(input)) {
    throw new InvalidInputError(
      `agent input must be a string or an array of content blocks, got ${describe(input)}`,
    );
  }
  return input.map((block, index) => {
    if (!isContentBlock(block)) {
      throw new InvalidInputError(
        `agent input[${index}] is not a content block (TextBlock, ImageBlock, AudioBlock, ResourceBlock or DataBlock), got ${describe(block)}`,
      );
    }
    return asBlockInstance(block);
  });
}

/**
 * The block as an instance of its class. Blocks are structural, so a plain object can pass
 * for one; rebuilding it runs the constructor's checks (the inline size limit) every time.
 */
function asBlockInstance(block: ContentBlock): ContentBlock {
  const b = block as ContentBlock & Record<string, unknown>;
  switch (block.type) {
    case 'text':
      return block instanceof TextBlock ? block : new TextBlock(b.text as string);
    case 'image':
      return block instanceof ImageBlock ? block : new ImageBlock(block);
    case 'audio':
      return block instanceof AudioBlock ? block : new AudioBlock(block);
    case 'resource':
      return block instanceof ResourceBlock ? block : new ResourceBlock(block);
    case 'data':
      return block instanceof DataBlock ? block : new DataBlock(b.data);
  }
}

/** The text of the text blocks, joined. */
export function joinedText(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

export function isContentBlock(value: unknown): value is ContentBlock {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return (
    type === 'text' ||
    type === 'image' ||
    type === 'audio' ||
    type === 'resource' ||
    type === 'data'
  );
}

/** Decoded size of a base64 string, computed from its length (no decoding). */
export function base64DecodedBytes(b64: string): number {
  if (typeof b64 !== 'string') throw new InvalidInputError('dataB64 must be a base64 string');
  const len = b64.replace(/\s/g, '').length;
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((len * 3) / 4) - padding;
}

function checkInline(blockType: string, bytes: number): void {
  if (bytes > INLINE_BLOCK_LIMIT_BYTES) {
    throw new BlockTooLargeError(blockType, bytes, INLINE_BLOCK_LIMIT_BYTES);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
