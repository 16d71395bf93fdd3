/**
 * A session shared by two writers on one SQLite file (two processes, as two connections):
 * a deck's turns read their history from the backend's parsed cache, and still send the
 * model what the other writer appended, popped or cleared in between.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelRequest } from '@openai/agents-core';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { Agent } from '../index.js';
import { SqliteSessionBackend } from '../stores/sqlite/sessions.js';
import { ScriptedModel } from '../testing/index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function contents(request: ModelRequest | undefined): unknown[] {
  const input = request?.input ?? [];
  if (typeof input === 'string') return [input];
  return input.map((item) => {
    const content = (item as { content?: unknown }).content;
    return typeof content === 'string'
      ? content
      : (content as Array<{ text?: string }>).map((part) => part.text).join('');
  });
}

describe('a session written by another process between turns', () => {
  it("each turn sends the other writer's appends, pops and clears", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-shared-session-'));
    const path = join(dir, 'sessions.db');
    const mine = new SqliteSessionBackend({ path });
    const other = new SqliteSessionBackend({ path });
    cleanups.push(async () => {
      await mine.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const model = new ScriptedModel(Array.from({ length: 4 }, (_, n) => ({ text: `a${n + 1}` })));
    const { deck } = await openTestDeck({
      sessionFactory: (id) => mine.sessionFor(id),
      agents: [new Agent({ name: 'A', model })],
    });
    const theirs = other.sessionFor('conv');
    await deck.run('A', 'q1', { sessionId: 'conv' });
    await theirs.addItems([{ role: 'user', content: 'from elsewhere' }]);
    await deck.run('A', 'q2', { sessionId: 'conv' });
    expect(contents(model.calls[1])).toEqual(['q1', 'a1', 'from elsewhere', 'q2']);
    await theirs.popItem(); // a2
    await theirs.popItem(); // q2
    await theirs.addItems([{ role: 'user', content: 'q2, reworded' }]);
    await deck.run('A', 'q3', { sessionId: 'conv' });
    expect(contents(model.calls[2])).toEqual(['q1', 'a1', 'from elsewhere', 'q2, reworded', 'q3']);
    await theirs.clearSession();
    await deck.run('A', 'q4', { sessionId: 'conv' });
    expect(contents(model.calls[3])).toEqual(['q4']);
    model.assertConsumed();
  });
});
