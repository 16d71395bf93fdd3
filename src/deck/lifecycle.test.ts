import { describe, expect, it } from 'vitest';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { threeSteps } from '../../test/support/workflows.js';
import {
  Agent,
  ConfigError,
  Deck,
  DeckClosedError,
  NotFoundError,
  NotOpenError,
  type Workflow,
} from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';
import { ScriptedModel } from '../testing/index.js';

const greeter = () =>
  new Agent({
    name: 'Greeter',
    instructions: 'Greet.',
    model: new ScriptedModel([{ text: 'hi' }]),
  });
const workflow = (name: string) => threeSteps({ name });

class Calendar {
  free(day: string) {
    return [`${day} 9am`];
  }
}

describe('Deck lifecycle', () => {
  it('goes NEW -> BUILT -> OPEN -> CLOSED; build() is sync and idempotent', async () => {
    const { deck } = testDeck({ agents: [greeter()] });
    expect(deck.state).toBe('new');
    expect(deck.build()).toBe(deck);
    expect(deck.state).toBe('built');
    deck.build();
    expect(deck.state).toBe('built');
    await deck.open();
    expect(deck.state).toBe('open');
    await deck.close();
    expect(deck.state).toBe('closed');
  });

  it('refuses a turn before open, and throws at the call (not at first read)', async () => {
    const { deck } = testDeck({ agents: [greeter()] });
    await expect(deck.run('Greeter', 'hi')).rejects.toThrow(NotOpenError);
    expect(() => deck.stream('Greeter', 'hi')).toThrow(/not open; call await deck.open\(\)/);
    deck.build();
    await expect(deck.status('x')).rejects.toThrow(NotOpenError);
  });

  it('cannot be reopened or used once closed', async () => {
    const { deck } = await openTestDeck({ agents: [greeter()] });
    await deck.close();
    await expect(deck.open()).rejects.toThrow(DeckClosedError);
    expect(() => deck.build()).toThrow(DeckClosedError);
    await expect(deck.run('Greeter', 'hi')).rejects.toThrow(/closed and cannot be reopened/);
  });

  it('allows one live deck per process, naming both', async () => {
    const { deck } = testDeck({ name: 'billing', agents: [greeter()] });
    expect(() => new Deck({ name: 'support' })).toThrow(ConfigError);
    expect(() => new Deck({ name: 'support' })).toThrow(/'support'.*'billing' is still live/);
    await deck.close();
    const next = new Deck({ name: 'support', eventStore: new MemoryEventStore() });
    await next.close();
  });

  it('closes with `await using` (Symbol.asyncDispose)', async () => {
    let escaped: Deck | undefined;
    {
      await using deck = await new Deck({ eventStore: new MemoryEventStore() }).open();
      escaped = deck;
      expect(deck.state).toBe('open');
    }
    expect(escaped?.state).toBe('closed');
  });

  it('exposes read-only catalogs and no runtime, store or observers property', async () => {
    const agent = greeter();
    const { deck } = testDeck({ agents: [agent], workflows: [workflow('Digest')] });
    expect(deck.agents.get('Greeter')).toBe(agent);
    expect([...deck.workflows.keys()]).toEqual(['Digest']);
    expect(() => (deck.agents as Map<string, Agent>).set('X', agent)).toThrow(/read-only/);
    expect(() => (deck.workflows as Map<string, Workflow>).delete('Digest')).toThrow(ConfigError);
    expect(() => (deck.agents as Map<string, Agent>).clear()).toThrow(ConfigError);
    for (const hidden of ['runtime', 'store', 'observers', 'events', 'eventStore']) {
      expect(hidden in deck).toBe(false);
    }
  });

  it('refuses a context instance at construction and accepts the class', async () => {
    expect(() => new Deck({ context: new Calendar() as never })).toThrow(
      /must be a type \(a class\), not an instance \(got an instance of Calendar\)/,
    );
    const { deck } = testDeck({ context: Calendar });
    expect(deck.state).toBe('new');
  });

  it('fails build() when an agent and a workflow share a name', async () => {
    const { deck } = testDeck({ agents: [greeter()], workflows: [workflow('Greeter')] });
    expect(() => deck.build()).toThrow(/an agent and a workflow are both named 'Greeter'/);
    expect(deck.state).toBe('new');
    await expect(deck.open()).rejects.toThrow(ConfigError);
  });

  it('fails build() on duplicate agent names', () => {
    const { deck } = testDeck({ agents: [greeter(), greeter()] });
    expect(() => deck.build()).toThrow(/two agents are named 'Greeter'/);
  });

  it('refuses things that are not agents', () => {
    expect(() => new Deck({ agents: [{ name: 'fake' } as never] })).toThrow(
      /agents\[0\] is not an Agent/,
    );
  });

  it('names the available agents and workflows when one is unknown', async () => {
    const { deck } = await openTestDeck({ agents: [greeter()], workflows: [workflow('Digest')] });
    await expect(deck.run('Nope', 'hi')).rejects.toThrow(NotFoundError);
    await expect(deck.run('Nope', 'hi')).rejects.toThrow(
      "No agent or workflow named 'Nope'. Available: ['Greeter', 'Digest'].",
    );
  });

  it('never closes an event store passed in; returns null status for unknown runs', async () => {
    const store = new MemoryEventStore();
    const { deck } = await openTestDeck({ agents: [greeter()], eventStore: store });
    expect(await deck.status('no-such-run')).toBeNull();
    const result = await deck.run('Greeter', 'hello');
    await deck.close();
    expect((await store.read(result.runId)).length).toBeGreaterThan(0);
  });

  it('builds its event store from SERVICE_EVENTS and closes it', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const file = join(mkdtempSync(join(tmpdir(), 'deck-')), 'state.db');
    process.env.SERVICE_EVENTS = `sqlite://${file}`;
    try {
      const deck = new Deck({ agents: [greeter()] });
      await deck.open();
      const { runId } = await deck.run('Greeter', 'hello');
      await deck.close();
      const { openEventStore } = await import('../stores/events-url.js');
      const reopened = openEventStore(`sqlite://${file}`);
      expect((await reopened.getRun(runId))?.status).toBe('completed');
      await reopened.close();
    } finally {
      process.env.SERVICE_EVENTS = 'memory://';
    }
  });
});
