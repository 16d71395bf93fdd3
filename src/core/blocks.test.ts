import { describe, expect, it } from 'vitest';
import {
  AudioBlock,
  DataBlock,
  ImageBlock,
  INLINE_BLOCK_LIMIT_BYTES,
  joinedText,
  ResourceBlock,
  TextBlock,
  toBlocks,
} from './blocks.js';
import { BlockTooLargeError, InvalidInputError } from './errors.js';

const b64OfSize = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('content blocks', () => {
  it('turns a string input into one TextBlock', () => {
    const blocks = toBlocks('hello');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toBeInstanceOf(TextBlock);
    expect(joinedText(blocks)).toBe('hello');
  });

  it('accepts an inline block of exactly the limit', () => {
    const image = new ImageBlock({
      mediaType: 'image/png',
      dataB64: b64OfSize(INLINE_BLOCK_LIMIT_BYTES),
    });
    expect(image.mediaType).toBe('image/png');
  });

  it('refuses an inline block over 1 MiB decoded, naming the block and its size', () => {
    const size = INLINE_BLOCK_LIMIT_BYTES + 1;
    const attempt = () => new AudioBlock({ mediaType: 'audio/wav', dataB64: b64OfSize(size) });
    expect(attempt).toThrow(BlockTooLargeError);
    expect(attempt).toThrow(`AudioBlock is ${size} bytes decoded`);
    try {
      new ImageBlock({ mediaType: 'image/png', dataB64: b64OfSize(size + 10) });
    } catch (error) {
      expect(error).toMatchObject({ blockType: 'ImageBlock', bytes: size + 10 });
    }
  });

  it('measures a DataBlock by its JSON size', () => {
    expect(() => new DataBlock({ blob: 'x'.repeat(INLINE_BLOCK_LIMIT_BYTES) })).toThrow(
      /DataBlock is \d+ bytes decoded/,
    );
    expect(new DataBlock({ ok: true }).data).toEqual({ ok: true });
  });

  it('never limits a ResourceBlock: its bytes are held elsewhere', () => {
    const ref = new ResourceBlock({
      uri: 's3://bucket/huge.bin',
      mediaType: 'application/octet-stream',
    });
    expect(ref.uri).toBe('s3://bucket/huge.bin');
  });

  it('rejects input that is neither a string nor blocks', () => {
    expect(() => toBlocks(42 as never)).toThrow(InvalidInputError);
    expect(() => toBlocks([{ text: 'no type' }] as never)).toThrow(
      /input\[0\] is not a content block/,
    );
  });
});
