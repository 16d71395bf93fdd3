/**
 * The parsed-history cache of the SQLite session backend stays right when another connection
 * (another process) writes the same file: appends, pops, clears, and a pop followed by an
 * append of the same count, checked after each step against a fresh full read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionItem } from '../../core/sessions.js';
import { SqliteSessionBackend } from './sessions.js';

let dir = '';
const open: SqliteSessionBackend[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentdeck-session-cache-'));
});

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
  rmSync(dir, { recursive: true, force: true });
});

function backend(options: { cachedSessions?: number } = {}): SqliteSessionBackend {
  const made = new SqliteSessionBackend({ path: join(dir, 'sessions.db'), ...options });
  open.push(made);
  return made;
}

const item = (text: string): SessionItem => ({ role: 'user', content: text });

describe('SQLite session backend: the shared history', () => {
  it('follows what another connection writes: appends, pops, clears', async () => {
    const reader = backend().sessionFor('s');
    const writer = backend().sessionFor('s');
    const agree = async () => {
      const expected = await writer.getItems();
      expect(await reader.getSharedItems()).toEqual(expected);
      expect(await reader.getItems()).toEqual(expected);
    };
    await agree();
    await writer.addItems([item('1'), item('2')]);
    await agree();
    await writer.addItems([item('3')]);
    await agree();
    // A pop then an append of another item: the same count, a different last item.
    await writer.popItem();
    await writer.addItems([item('3b')]);
    await agree();
    // Two pops and two appends: the count and the last item as before, the middle changed.
    await writer.addItems([item('4')]);
    await agree();
    await writer.popItem();
    await writer.popItem();
    await writer.addItems([item('3c'), item('4')]);
    await agree();
    await writer.clearSession();
    await agree();
    await writer.addItems([item('after clear')]);
    await agree();
    expect((await reader.getSharedItems()).map((i) => i.content)).toEqual(['after clear']);
  });

  it('reads what it wrote itself, and other sessions stay apart', async () => {
    const one = backend();
    const a = one.sessionFor('a');
    const b = one.sessionFor('b');
    await a.addItems([item('a1')]);
    expect(await a.getSharedItems()).toEqual([item('a1')]);
    await b.addItems([item('b1')]);
    await a.addItems([item('a2')]);
    expect(await a.getSharedItems()).toEqual([item('a1'), item('a2')]);
    expect(await b.getSharedItems()).toEqual([item('b1')]);
  });

  it('hands out frozen items in a new array each time; getItems() still gives copies', async () => {
    const session = backend().sessionFor('s');
    await session.addItems([{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]);
    const first = (await session.getSharedItems()) as SessionItem[];
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(Object.isFrozen((first[0]?.content as object[] | undefined)?.[0])).toBe(true);
    expect(() => {
      (first[0] as { role: string }).role = 'changed';
    }).toThrow(TypeError);
    first.push(item('not stored'));
    expect(await session.getSharedItems()).toHaveLength(1);
    const copy = await session.getItems();
    expect(Object.isFrozen(copy[0])).toBe(false);
  });

  it('with more sessions than it caches, the ones read longest ago are read again, the same', async () => {
    const one = backend({ cachedSessions: 1 });
    await one.sessionFor('a').addItems([item('a1')]);
    await one.sessionFor('b').addItems([item('b1')]);
    expect(await one.sessionFor('a').getSharedItems()).toEqual([item('a1')]);
    expect(await one.sessionFor('b').getSharedItems()).toEqual([item('b1')]);
    await one.sessionFor('a').addItems([item('a2')]);
    expect(await one.sessionFor('a').getSharedItems()).toEqual([item('a1'), item('a2')]);
  });

  it('refuses a cachedSessions that is not a whole number, 0 or more', () => {
    expect(() => backend({ cachedSessions: -1 })).toThrow(
      /`cachedSessions` must be a whole number/,
    );
  });
});
