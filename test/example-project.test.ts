/**
 * The shipped example project (`examples/project`), discovered as a user's would be: the
 * concierge agent uses its own tool, its skill and a real MCP server over the real OpenAI
 * client path (the scripted model server); the expense approval waits for an answer, then
 * sleeps until its payment time and is woken by tick(). Without a model configured, the
 * workflow still works and an agent turn fails fast saying what to set.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, Deck, InterruptResult } from '../src/index.js';
import { scriptedModelServer } from '../src/testing/index.js';

const PROJECT = resolve(import.meta.dirname, '../examples/project/.agentdeck');
const decks: Deck[] = [];

afterEach(async () => {
  for (const deck of decks.splice(0)) await deck.close();
  vi.unstubAllEnvs();
});

async function openExample(): Promise<Deck> {
  const deck = await Deck.fromProject(PROJECT);
  decks.push(deck);
  return deck.open();
}

describe('the example project', () => {
  it('plays the concierge: its tool, its skill and an MCP tool', { timeout: 40_000 }, async () => {
    const server = await scriptedModelServer([
      { toolCalls: [{ name: 'load_skill', arguments: { name: 'house-rules' } }] },
      { toolCalls: [{ name: 'local_time', arguments: { timeZone: 'Europe/Paris' } }] },
      { toolCalls: [{ name: 'get_sum', arguments: { a: 2, b: 3 } }] }, // MCP names: '-' becomes '_'
      { text: 'Rooms are booked in 30-minute slots; 2 + 3 = 5.' },
    ]);
    vi.stubEnv('OPENAI_BASE_URL', server.url);
    vi.stubEnv('OPENAI_API_KEY', 'sk-test');
    try {
      const deck = await openExample();
      expect(deck.name).toBe('project');
      const result = await deck.run('concierge', 'How are rooms booked? And what is 2 + 3?');
      expect(result.output).toBe('Rooms are booked in 30-minute slots; 2 + 3 = 5.');
      const bodies = server.requests.map((r) => JSON.stringify(r.body));
      expect(bodies[0]).toContain('house-rules: The office');
      expect(bodies[1]).toContain('30-minute slots'); // the skill's body went back to the model
      expect(bodies[3]).toMatch(/The sum of 2 and 3 is 5/);
      server.assertConsumed();
    } finally {
      await server.close();
    }
  });

  it('asks for approval, then pays when tick() finds the payment due', {
    timeout: 40_000,
  }, async () => {
    const deck = await openExample();
    const thread = `expense-${Date.now()}`;
    const paused = await deck.run(
      'expense-approval',
      { employee: 'Ada', amount: 420, payInSeconds: 0 },
      { sessionId: thread },
    );
    expect(paused).toBeInstanceOf(InterruptResult);
    expect((paused as InterruptResult).payload).toEqual({ question: 'Approve 420 EUR for Ada?' });
    const sleeping = await deck.answer((paused as InterruptResult).runId as string, {
      approved: true,
    });
    expect(sleeping).toBeInstanceOf(InterruptResult); // asleep until its payment time
    const [woken] = await deck.tick(new Date(Date.now() + 1_000));
    expect(woken?.result).toMatchObject({ employee: 'Ada', approved: true, paid: true });
  });

  it('without a model configured, fails an agent turn fast with what to set', {
    timeout: 40_000,
  }, async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const deck = await openExample();
    const failure = deck.run('concierge', 'hello');
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(
      "agent 'concierge' cannot run: agent turns need a model: set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL",
    );
  });
});
