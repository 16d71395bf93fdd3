import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { Agent, type ConversationSession, Deck, type SessionItem } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const dirs: string[] = [];

afterEach(() => {
  vi.unstubAllEnvs();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** One turn on conversation `conv` by a deck opened on the environment, closed after it. */
async function turnOnAFreshDeck(message: string): Promise<ScriptedModel> {
  const model = new ScriptedModel([{ text: `heard: ${message}` }]);
  const deck = new Deck({ agents: [new Agent({ name: 'A', model })] });
  await deck.open();
  try {
    await deck.run('A', message, { sessionId: 'conv' });
  } finally {
    await deck.close();
  }
  return model;
}

class ListSession implements ConversationSession {
  readonly items: SessionItem[] = [];
  constructor(readonly id: string) {}
  async getSessionId() {
    return this.id;
  }
  async getItems(limit?: number) {
    return limit === undefined ? [...this.items] : this.items.slice(-limit);
  }
  async addItems(items: SessionItem[]) {
    this.items.push(...items);
  }
  async popItem() {
    return this.items.pop();
  }
  async clearSession() {
    this.items.length = 0;
  }
}

describe('conversation sessions', () => {
  it('keeps the history across turns with the same sessionId (in-process SQLite by default)', async () => {
    const model = new ScriptedModel([{ text: 'Nice to meet you, Ada.' }, { text: 'You are Ada.' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    await deck.run('A', 'My name is Ada.', { sessionId: 'conv-1' });
    await deck.run('A', 'Who am I?', { sessionId: 'conv-1' });
    const secondInput = JSON.stringify(model.calls[1]?.input);
    expect(secondInput).toContain('My name is Ada.');
    expect(secondInput).toContain('Nice to meet you, Ada.');
    expect(secondInput).toContain('Who am I?');
    const items = await deck.sessionFor('conv-1').getItems();
    expect(items).toHaveLength(4);
  });

  it('keeps sessions apart, and a turn without sessionId has no history', async () => {
    const model = new ScriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'A', model })] });
    await deck.run('A', 'first', { sessionId: 'x' });
    await deck.run('A', 'second', { sessionId: 'y' });
    await deck.run('A', 'third');
    expect(JSON.stringify(model.calls[1]?.input)).not.toContain('first');
    expect(JSON.stringify(model.calls[2]?.input)).not.toContain('second');
    expect(await deck.sessionFor('x').getItems()).toHaveLength(2);
  });

  it('uses an injected sessionFactory for turns and for sessionFor()', async () => {
    const sessions = new Map<string, ListSession>();
    const sessionFactory = (id: string) => {
      const existing = sessions.get(id) ?? new ListSession(id);
      sessions.set(id, existing);
      return existing;
    };
    const model = new ScriptedModel([{ text: 'stored' }]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'A', model })],
      sessionFactory,
    });
    await deck.run('A', 'remember me', { sessionId: 'inj' });
    expect(sessions.get('inj')?.items).toHaveLength(2);
    expect(deck.sessionFor('inj')).toBe(sessions.get('inj'));
  });
});

describe('where conversations are kept', () => {
  it("keeps them in the events' SQLite file by default: they survive a close and reopen", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-sessions-'));
    dirs.push(dir);
    vi.stubEnv('SERVICE_EVENTS', `sqlite://${join(dir, 'state.db')}`);
    await turnOnAFreshDeck('My name is Ada.');
    const second = await turnOnAFreshDeck('Who am I?');
    const input = JSON.stringify(second.calls[0]?.input);
    expect(input).toContain('My name is Ada.');
    expect(input).toContain('heard: My name is Ada.');
  });

  it('keeps them in memory with SERVICE_SESSION=memory://: a reopened deck has none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-sessions-'));
    dirs.push(dir);
    vi.stubEnv('SERVICE_EVENTS', `sqlite://${join(dir, 'state.db')}`);
    vi.stubEnv('SERVICE_SESSION', 'memory://');
    await turnOnAFreshDeck('My name is Ada.');
    const second = await turnOnAFreshDeck('Who am I?');
    expect(JSON.stringify(second.calls[0]?.input)).not.toContain('Ada');
  });
});
