/**
 * A pause at any moment of an agent turn ends in `run.paused` and resumes to the end, never
 * `run.failed`, on the real OpenAI client path (the scripted HTTP model server), on both
 * APIs: right at the run's start (the run-control sample of docs/run-control.md: the run id
 * from the first event), before the model request, while the response streams, and between a tool call and
 * the next request.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { Agent, type Event, tool } from '../index.js';

const modelServer = useScriptedModelServer();

/** Set by a test that pauses from inside the tool: the pause is pending when it returns. */
let pauseFromTool: ((runId: string) => Promise<unknown>) | null = null;

const lookUp = tool({
  name: 'look_up',
  description: 'Look a room up',
  parameters: z.object({ room: z.string() }),
  execute: async ({ room }, ctx) => {
    if (ctx.runId) await pauseFromTool?.(ctx.runId);
    return `room ${room} is free`;
  },
});

type PauseAt = 'run.started' | 'text.delta' | 'the tool';

/** Play a streamed turn, pausing at `at` (an event first seen, or inside the tool); the kinds read, then resume's. */
async function pauseThenResume(at: PauseAt) {
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'Booker', instructions: 'Book rooms.', tools: [lookUp] })],
  });
  pauseFromTool = at === 'the tool' ? (runId) => deck.pause(runId, { reason: 'check' }) : null;
  const kinds: string[] = [];
  let runId = '';
  let asked = false;
  for await (const event of deck.stream('Booker', 'Book room 4', { sessionId: `s-${at}` })) {
    kinds.push(event.kind);
    runId = event.runId;
    if (!asked && event.kind === at) {
      asked = true;
      await deck.pause(runId, { reason: 'check' });
    }
  }
  const resumed: Event[] = await deck.resume(runId);
  return { kinds, resumed: resumed.map((event) => event.kind) };
}

describe.each([
  ['Responses', 'true'],
  ['chat completions', 'false'],
])('a pause at any point of a turn, over the %s API', (_api, useResponses) => {
  it('right at the start (the first event): paused before the request, resumed to the end', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    modelServer().push({ text: ['Booked ', 'room 4.'], delayMs: 20 });
    const { kinds, resumed } = await pauseThenResume('run.started');
    expect(kinds.at(-1)).toBe('run.paused');
    expect(kinds).not.toContain('run.failed');
    expect(resumed.at(0)).toBe('run.resumed');
    expect(resumed.at(-1)).toBe('run.completed');
    modelServer().assertConsumed();
  });

  it('while the response streams: the reply is cut short, asked again on resume', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    modelServer().push(
      { text: ['Booked ', 'room ', '4 ', 'for ', 'you.'], delayMs: 40 },
      { text: 'Booked room 4.' },
    );
    const { kinds, resumed } = await pauseThenResume('text.delta');
    expect(kinds.at(-1)).toBe('run.paused');
    expect(kinds).not.toContain('run.failed');
    expect(resumed.at(-1)).toBe('run.completed');
    modelServer().assertConsumed();
  });

  it('between a tool call and the next request: the tool ran once, the next request on resume', async () => {
    vi.stubEnv('OPENAI_USE_RESPONSES', useResponses);
    modelServer().push(
      { toolCalls: [{ name: 'look_up', arguments: { room: '4' } }] },
      { text: 'Room 4 is yours.' },
    );
    const { kinds, resumed } = await pauseThenResume('the tool');
    expect(kinds.at(-1)).toBe('run.paused');
    expect(kinds).not.toContain('run.failed');
    expect(kinds.filter((kind) => kind === 'tool.call.completed')).toHaveLength(1);
    expect(resumed).not.toContain('tool.call.completed');
    expect(resumed.at(-1)).toBe('run.completed');
    modelServer().assertConsumed();
  });
});
