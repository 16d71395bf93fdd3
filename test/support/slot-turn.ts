/**
 * Test support: one agent turn that exercises both turn loops alike: a text, two calls of
 * one tool whose first call ends last, then a streamed answer in two chunks, with usage.
 */
import { z } from 'zod';
import type { ScriptedStep } from '../../src/testing/index.js';

/** The model's two replies (fresh objects each call: a scripted model consumes them). */
export const steps = (): ScriptedStep[] => [
  {
    text: 'Let me look.',
    toolCalls: [
      { name: 'find_slots', arguments: { day: 'tuesday' }, callId: 'call_1' },
      { name: 'find_slots', arguments: { day: 'friday' }, callId: 'call_2' },
    ],
    usage: { inputTokens: 12, outputTokens: 7 },
  },
  { text: ['Tuesday ', 'at 9am.'], usage: { inputTokens: 30, outputTokens: 4 } },
];

export const Day = z.object({ day: z.string() });

/** The first call ends last: outputs are still recorded in the order of the calls. */
export const slots = async ({ day }: { day: string }) => {
  await new Promise((resolve) => setTimeout(resolve, day === 'tuesday' ? 40 : 0));
  return `${day}: 9am`;
};
