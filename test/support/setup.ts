/**
 * Vitest setup file, run before every test file of both projects. The `unit` project runs its
 * files in shared workers (no isolation: modules load once per worker, which is most of what
 * a file used to cost), so what one file leaves behind reaches the next. This file:
 * - runs the support modules' clean-ups after every test (`after-each-test.ts`);
 * - fails a file that leaves a Deck live (one live Deck per process), at the file that did it,
 *   rather than at every file after it in the worker.
 */
import { afterAll, afterEach, expect } from 'vitest';
import { runCleanups } from './after-each-test.js';

const LIVE_DECK = Symbol.for('agentdeck.liveDeck');

afterEach(runCleanups);

afterAll(async () => {
  const registry = globalThis as { [LIVE_DECK]?: { name: string; close?: () => Promise<void> } };
  const live = registry[LIVE_DECK];
  if (!live) return;
  await live.close?.().catch(() => undefined);
  delete registry[LIVE_DECK];
  expect.fail(
    `this file left deck '${live.name}' open: close every deck it opens (await deck.close())`,
  );
});
