/**
 * The codec on the frozen event corpus: each `test/fixtures/events/v3/<kind>.jsonl`, folded as
 * one stream, is compared with its golden SSE text in `test/fixtures/golden/ai-sdk/<kind>.sse`
 * (so a new event kind shows up here as a missing golden file). Regenerate them with
 * `UPDATE_GOLDEN=1 npx vitest run src/surfaces/ai-sdk/codec.test.ts` and read the diff. Every
 * chunk must pass the `ai` package's own chunk schema and carry only the keys that schema
 * declares for its type. And the folds the corpus cannot show: steps around model requests, a
 * rejected call, a continuation.
 */
import { join } from 'node:path';
import { type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_FILES,
  corpusEvents,
  expectGolden,
  goldenDir,
} from '../../../test/support/golden.js';
import { type Event, parseEvent } from '../../core/events.js';
import { chunkFrames, type UiMessageChunk as OurChunk } from './chunks.js';
import { continuation, encodeEvent, INITIAL_UI_STREAM_STATE, type UiStreamState } from './codec.js';

const GOLDEN = goldenDir('ai-sdk');

/** Fold events as one stream: each event's chunks, and the stream's SSE text. */
function fold(events: readonly Event[], from: UiStreamState = INITIAL_UI_STREAM_STATE) {
  let state = from;
  const chunks: OurChunk[] = [];
  let sse = '';
  for (const event of events) {
    const step = encodeEvent(state, event);
    state = step.state;
    chunks.push(...step.chunks);
    sse += chunkFrames(event.seq, step.chunks);
  }
  return { state, chunks, sse };
}

type AiChunkType = UIMessageChunk['type'] extends infer T
  ? T extends `data-${string}`
    ? 'data-'
    : T
  : never;
type AiKeys<T> = T extends 'data-'
  ? keyof Extract<UIMessageChunk, { type: `data-${string}` }>
  : keyof Extract<UIMessageChunk, { type: T }>;
/**
 * The keys of each chunk type we write, as `ai`'s `UIMessageChunk` declares them: a key listed
 * here that the type does not declare fails to compile, so a chunk with a key not listed here
 * (checked below at run time) carries a key the AI SDK does not know.
 */
const DECLARED: { [T in AiChunkType]?: readonly AiKeys<T>[] } = {
  start: ['type', 'messageId', 'messageMetadata'],
  'start-step': ['type'],
  'finish-step': ['type'],
  'text-start': ['type', 'id'],
  'text-delta': ['type', 'id', 'delta'],
  'text-end': ['type', 'id'],
  'reasoning-start': ['type', 'id'],
  'reasoning-delta': ['type', 'id', 'delta'],
  'reasoning-end': ['type', 'id'],
  'tool-input-available': ['type', 'toolCallId', 'toolName', 'input'],
  'tool-approval-request': ['type', 'approvalId', 'toolCallId'],
  'tool-approval-response': ['type', 'approvalId', 'approved', 'reason'],
  'tool-output-available': ['type', 'toolCallId', 'output'],
  'tool-output-error': ['type', 'toolCallId', 'errorText'],
  'tool-output-denied': ['type', 'toolCallId'],
  'data-': ['type', 'id', 'data'],
  finish: ['type', 'finishReason', 'messageMetadata'],
  error: ['type', 'errorText'],
  abort: ['type', 'reason'],
};

describe('the AI SDK codec on the frozen event corpus', () => {
  for (const file of CORPUS_FILES) {
    it(`maps ${file} as its golden file says, in chunks the ai package accepts`, async () => {
      const { chunks, sse } = fold(corpusEvents(file));
      const golden = join(GOLDEN, file.replace(/\.jsonl$/, '.sse'));
      expectGolden(golden, sse, 'src/surfaces/ai-sdk/codec.test.ts');
      for (const chunk of chunks) {
        expect(await uiMessageChunkSchema().validate?.(chunk)).toMatchObject({ success: true });
        const type = chunk.type.startsWith('data-') ? 'data-' : chunk.type;
        const allowed: readonly string[] | undefined = DECLARED[type as AiChunkType];
        expect(allowed, `no declared keys for chunk type ${type}`).toBeDefined();
        for (const key of Object.keys(chunk)) expect(allowed, `${type}.${key}`).toContain(key);
      }
    });
  }
});

/** A run's events from wire-like shorthand: kind and payload, seq in order. */
function run(...steps: [string, Record<string, unknown>][]): Event[] {
  return steps.map(([kind, payload], seq) =>
    parseEvent({
      v: 3,
      kind,
      seq,
      run_id: 'r1',
      session_id: 'chat-1',
      namespace: null,
      origin: 'Clerk',
      ts: '2026-11-27T12:00:00.000Z',
      payload,
    }),
  );
}

const usage = {
  model: 'm',
  requests: 1,
  input_tokens: 1,
  output_tokens: 1,
  total_tokens: 2,
  usd: null,
};
const types = (chunks: readonly OurChunk[]) => chunks.map((chunk) => chunk.type);

describe('the AI SDK codec', () => {
  it('puts each model request in a step: a tool round, then the answer', () => {
    const { chunks } = fold(
      run(
        ['run.started', { invocable_type: 'agent', input: [{ type: 'text', text: 'hi' }] }],
        ['thought.delta', { message_id: 'r1:m0', text: 'look it up' }],
        ['usage.reported', usage],
        ['tool.call.started', { call_id: 'c1', name: 'look_up', arguments: { order: 'A1' } }],
        ['tool.call.completed', { call_id: 'c1', name: 'look_up', output: 'paid', error: null }],
        ['text.delta', { message_id: 'r1:m0', text: 'It is ' }],
        ['text.delta', { message_id: 'r1:m0', text: 'paid.' }],
        ['usage.reported', usage],
        ['message.completed', { message_id: 'r1:m0', role: 'assistant', content: [] }],
        ['run.completed', { output: [{ type: 'text', text: 'It is paid.' }], usage: null }],
      ),
    );
    expect(types(chunks)).toEqual([
      'start',
      'start-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(chunks[0]).toEqual({
      type: 'start',
      messageId: 'r1',
      messageMetadata: { run_id: 'r1' },
    });
  });

  it('asks for approval, and a continuation shows the rejected call as denied, not failed', () => {
    const events = run(
      ['run.started', { invocable_type: 'agent', input: [] }],
      ['usage.reported', usage],
      ['tool.call.started', { call_id: 'c2', name: 'refund', arguments: { order: 'B' } }],
      [
        'run.interrupted',
        { reason: 'approval', payload: { tool: 'refund', call_id: 'c2' }, thread_id: 'chat-1' },
      ],
      ['run.resumed', { request_id: null, answer: { approved: false, reason: 'no' } }],
      ['tool.call.completed', { call_id: 'c2', name: 'refund', output: null, error: 'rejected' }],
      ['run.cancelled', { reason: null }],
    );
    const held = fold(events.slice(0, 4));
    expect(held.chunks.slice(-4)).toEqual([
      { type: 'tool-input-available', toolCallId: 'c2', toolName: 'refund', input: { order: 'B' } },
      { type: 'tool-approval-request', approvalId: 'c2', toolCallId: 'c2' },
      { type: 'finish-step' },
      { type: 'finish', finishReason: 'tool-calls' },
    ]);
    const rest = fold(events.slice(4), continuation(held.state));
    expect(rest.chunks).toEqual([
      { type: 'start', messageId: 'r1', messageMetadata: { run_id: 'r1' } },
      { type: 'tool-approval-response', approvalId: 'c2', approved: false, reason: 'no' },
      { type: 'start-step' },
      { type: 'tool-output-denied', toolCallId: 'c2' },
      { type: 'finish-step' },
      { type: 'abort' },
    ]);
  });
});
