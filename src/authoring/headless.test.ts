import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, tool } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

describe('Agent.run() (headless)', () => {
  it('bypasses the Deck and returns the engine result', async () => {
    const model = new ScriptedModel([{ text: 'headless hello' }]);
    const agent = new Agent({ name: 'H', instructions: 'Say hi.', model });
    const result = await agent.run('hi');
    expect(result.finalOutput).toBe('headless hello');
    expect(model.calls[0]?.systemInstructions).toBe('Say hi.');
  });

  it('fails when the model calls a tool that requires a context', async () => {
    class Calendar {}
    const model = new ScriptedModel([{ toolCalls: [{ name: 'book', arguments: { slot: '9' } }] }]);
    const book = tool({
      name: 'book',
      description: 'Book',
      parameters: z.object({ slot: z.string() }),
      context: Calendar,
      execute: () => 'never',
    });
    const agent = new Agent({ name: 'H', model, tools: [book] });
    await expect(agent.run('book')).rejects.toThrow(
      /requires a context, and a headless run passes none/,
    );
  });
});
