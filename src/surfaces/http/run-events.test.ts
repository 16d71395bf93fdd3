import { describe, expect, it } from 'vitest';
import { TextBlock } from '../../core/blocks.js';
import type { Event } from '../../core/events.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { runEventFrames } from './run-events.js';
import type { EventLog } from './served-deck.js';

const envelope = { runId: 'r1', sessionId: null, namespace: null, origin: 'A' };

describe('runEventFrames', () => {
  it('still sends the last events of a run that ends between a read and the status check', async () => {
    const store = new MemoryEventStore();
    await store.append([
      { ...envelope, kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
    ]);
    // The run completes right after a read that found nothing new, before getRun is asked.
    let reads = 0;
    const log: EventLog = {
      listRuns: (filter) => store.listRuns(filter),
      getRun: (runId) => store.getRun(runId),
      read: async (runId, options) => {
        const events: Event[] = await store.read(runId, options);
        reads += 1;
        if (reads === 2) {
          await store.append([
            {
              ...envelope,
              kind: 'message.completed',
              payload: { messageId: 'm', role: 'assistant', content: [] },
            },
            {
              ...envelope,
              kind: 'run.completed',
              payload: { output: [new TextBlock('done')], usage: null },
            },
          ]);
        }
        return events;
      },
    };
    const frames: string[] = [];
    const signal = new AbortController().signal;
    for await (const frame of runEventFrames(log, 'r1', { afterSeq: -1, follow: true, signal })) {
      frames.push(frame);
    }
    expect(frames.map((frame) => /"kind":"([^"]+)"/.exec(frame)?.[1])).toEqual([
      'run.started',
      'message.completed',
      'run.completed',
    ]);
  });
});
