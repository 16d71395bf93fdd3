/**
 * What the trace shows of an event: the Langfuse fields of an observation, the fields a
 * segment's last event sets on it, and content blocks as a trace shows them.
 */
import type { ContentBlock } from '../../core/blocks.js';
import type { KnownEvent } from '../../core/events.js';

export type ObservationType = 'span' | 'generation' | 'tool' | 'chain' | 'event';
export type Level = 'DEBUG' | 'DEFAULT' | 'WARNING' | 'ERROR';

export interface Fields {
  input?: unknown;
  output?: unknown;
  metadata?: Record<string, unknown>;
  level?: Level;
  statusMessage?: string;
  model?: string;
  usageDetails?: Record<string, number>;
  costDetails?: Record<string, number>;
}

export type SegmentEnd = Extract<
  KnownEvent,
  { kind: 'run.completed' | 'run.failed' | 'run.cancelled' | 'run.interrupted' | 'run.paused' }
>;

export function endFields(event: SegmentEnd): Fields {
  switch (event.kind) {
    case 'run.completed':
      return {
        output: renderBlocks(event.payload.output),
        metadata: { status: 'completed', usage: event.payload.usage },
      };
    case 'run.failed':
      return {
        level: 'ERROR',
        statusMessage: `${event.payload.errorType}: ${event.payload.message}`,
        metadata: { status: 'failed' },
      };
    case 'run.cancelled':
      return {
        level: 'WARNING',
        statusMessage: event.payload.reason ?? 'cancelled',
        metadata: { status: 'cancelled' },
      };
    case 'run.interrupted':
      return {
        output: event.payload.payload,
        metadata: { status: 'waiting_human', thread_id: event.payload.threadId },
      };
    case 'run.paused':
      return { statusMessage: event.payload.reason ?? 'paused', metadata: { status: 'paused' } };
  }
}

/** Blocks as a trace shows them: text as text, data as JSON, media by type only (never its bytes). */
export function renderBlocks(blocks: readonly ContentBlock[]): unknown {
  const shown = blocks.map(renderBlock);
  return shown.length === 1 ? shown[0] : shown;
}

function renderBlock(block: ContentBlock): unknown {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'data':
      return block.data;
    case 'resource':
      return { type: 'resource', uri: block.uri, media_type: block.mediaType };
    case 'image':
    case 'audio':
      return { type: block.type, media_type: block.mediaType };
  }
}

export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}
