/**
 * What the event store contract suites write and check: run envelopes with fresh ids, one
 * builder per event kind they need, and small helpers. Shared by `event-store-contract.ts`,
 * `event-store-coordination.ts` and `event-store-pruning.ts`.
 */
import { type ContentBlock, TextBlock } from '../core/blocks.js';
import type { NewEvent } from '../core/events.js';

export type Envelope = Pick<NewEvent, 'runId' | 'sessionId' | 'namespace' | 'origin'>;

export const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const uid = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;

export function run(extra: Partial<Omit<Envelope, 'runId'>> = {}): Envelope {
  return { runId: uid('run'), sessionId: null, namespace: null, origin: 'contract', ...extra };
}

export const ev = {
  started: (e: Envelope, input: ContentBlock[] = [new TextBlock('hi')]): NewEvent => ({
    ...e,
    kind: 'run.started',
    payload: { invocableType: 'agent', input },
  }),
  delta: (e: Envelope, text: string): NewEvent => ({
    ...e,
    kind: 'text.delta',
    payload: { messageId: 'm1', text },
  }),
  interrupted: (e: Envelope): NewEvent => ({
    ...e,
    kind: 'run.interrupted',
    payload: { payload: { question: 'ok?' }, threadId: 't1' },
  }),
  resumed: (e: Envelope): NewEvent => ({ ...e, kind: 'run.resumed', payload: { requestId: null } }),
  paused: (e: Envelope): NewEvent => ({ ...e, kind: 'run.paused', payload: { reason: 'later' } }),
  completed: (e: Envelope, output: ContentBlock[] = [new TextBlock('done')]): NewEvent => ({
    ...e,
    kind: 'run.completed',
    payload: { output, usage: null },
  }),
  failed: (e: Envelope): NewEvent => ({
    ...e,
    kind: 'run.failed',
    payload: { errorType: 'TypeError', message: 'boom' },
  }),
  cancelled: (e: Envelope): NewEvent => ({
    ...e,
    kind: 'run.cancelled',
    payload: { reason: 'stopped' },
  }),
};

export function textsOf(events: { payload: unknown }[]): string[] {
  return events.map((event) => (event.payload as { text: string }).text);
}
