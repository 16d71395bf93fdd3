/**
 * The turn loop the session benches share (`session-turns.bench.ts`, `model-calls.bench.ts`):
 * agent `Booker` on a deck over a fresh SQLite file, a warm-up turn on its own session, then
 * `turns` turns on one session, each timed in wall clock and process CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Deck, type DeckOptions } from '../../src/index.js';
import { SqliteEventStore } from '../../src/stores/sqlite/events.js';
import type { ScriptedModel } from '../../src/testing/index.js';
import { median } from './report.js';

export interface TurnSamples {
  /** Per turn, wall-clock ms. */
  wall: number[];
  /** Per turn, process CPU ms. */
  cpu: number[];
}

/** Play `turns` turns of `Booker` (made by `options`, answered by `model`) on one session. */
export async function playSessionTurns(
  turns: number,
  model: ScriptedModel,
  options: Omit<DeckOptions, 'eventStore'>,
): Promise<TurnSamples> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const deck = new Deck({
    ...options,
    eventStore: new SqliteEventStore({ path: join(dir, 'events.db') }),
  });
  await deck.open();
  const wall: number[] = [];
  const cpu: number[] = [];
  try {
    await deck.run('Booker', 'warm up', { sessionId: 'warm-up' });
    for (let turn = 1; turn <= turns; turn += 1) {
      const cpuAt = process.cpuUsage();
      const started = performance.now();
      await deck.run('Booker', `Can we meet on day ${turn}?`, { sessionId: 'bench' });
      wall.push(performance.now() - started);
      const used = process.cpuUsage(cpuAt);
      cpu.push((used.user + used.system) / 1000);
      // The scripted model keeps every request; the bench measures the deck, not that record.
      model.calls.length = 0;
    }
  } finally {
    await deck.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { wall, cpu };
}

/** The median over the `window` turns ending at `turn` (turn 1: turns 1 to `window`). */
export function windowMedian(values: number[], turn: number, window: number): number {
  const end = Math.max(turn, window);
  return median(values.slice(end - window, end));
}
