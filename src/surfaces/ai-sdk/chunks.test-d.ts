/**
 * Our chunk types against the AI SDK's: every chunk this surface writes is a `UIMessageChunk`
 * of the `ai` package, and carries no key that type does not declare for its `type` (extra
 * keys would pass plain assignability). Checked by `npm run typecheck`; `ai` stays a
 * test-only, type-only import.
 */
import type { UIMessageChunk } from 'ai';
import { expectTypeOf } from 'vitest';
import type { UiMessageChunk } from './chunks.js';

expectTypeOf<UiMessageChunk>().toExtend<UIMessageChunk>();

/** The keys of a chunk of ours that the AI SDK's chunk of the same type does not declare. */
type ExtraKeys<C> = C extends { type: infer T }
  ? Exclude<
      keyof C,
      keyof Extract<UIMessageChunk, { type: T extends `data-${string}` ? `data-${string}` : T }>
    >
  : never;

expectTypeOf<ExtraKeys<UiMessageChunk>>().toEqualTypeOf<never>();
