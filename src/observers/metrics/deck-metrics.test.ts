/**
 * DeckMetrics on a real memory store, without a deck: which runs get a duration, how many
 * starts are remembered, and a scrape that does not wait for a store that does not answer.
 * (What a deck's runs and requests count is tested over HTTP: surfaces/http/metrics.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../../test/support/prometheus.js';
import type { NewEvent } from '../../core/events.js';
import type { RunSummary } from '../../core/store.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { DeckMetrics, type DeckMetricsOptions } from './deck-metrics.js';

const envelope = (runId: string) => ({ runId, sessionId: null, namespace: null, origin: 'A' });
const started = (runId: string): NewEvent => ({
  ...envelope(runId),
  kind: 'run.started',
  payload: { invocableType: 'agent', input: [] },
});
const completed = (runId: string): NewEvent => ({
  ...envelope(runId),
  kind: 'run.completed',
  payload: { output: [], usage: null },
});

function metered(options: DeckMetricsOptions = {}) {
  const metrics = new DeckMetrics(options);
  const store = metrics.meterEventStore(new MemoryEventStore(), 'memory');
  const scrape = async () => parseExposition((await metrics.scrape()).body);
  return { metrics, store, scrape };
}

describe('DeckMetrics', () => {
  it('times a run from its start to its end, if this process appended both', async () => {
    const { store, scrape } = metered();
    await store.append([started('r-1')]);
    await store.endRun(completed('r-1'), null);
    const elsewhere = new MemoryEventStore(); // another process started r-2
    await elsewhere.append([started('r-2')]);
    await store.append([completed('r-2')]);
    const m = await scrape();
    expect(m.value('agentdeck_runs_started_total', { origin: 'A', kind: 'agent' })).toBe(1);
    expect(m.value('agentdeck_runs_ended_total', { origin: 'A', status: 'completed' })).toBe(2);
    expect(m.value('agentdeck_run_duration_seconds_count')).toBe(1);
    expect(m.value('agentdeck_events_appended_total', { kind: 'run.completed' })).toBe(2);
  });

  it('remembers at most trackedRuns starts, forgetting the oldest', async () => {
    const { store, scrape } = metered({ trackedRuns: 1 });
    await store.append([started('r-1')]);
    await store.append([started('r-2')]);
    await store.append([completed('r-1')]);
    await store.append([completed('r-2')]);
    expect((await scrape()).value('agentdeck_run_duration_seconds_count')).toBe(1);
  });

  it('writes a scrape without the runs at rest when the store does not answer in time', async () => {
    const metrics = new DeckMetrics({ waitingTimeoutMs: 20 });
    const hanging = { listRuns: () => new Promise<RunSummary[]>(() => {}) };
    metrics.watch({ liveRuns: () => 2, observers: [], runs: hanging });
    const before = Date.now();
    const m = parseExposition((await metrics.scrape()).body);
    expect(Date.now() - before).toBeLessThan(1_000);
    expect(m.value('agentdeck_live_runs')).toBe(2);
    expect(m.has('agentdeck_runs_waiting')).toBe(false);
  });

  it('uses a registry of its own: two decks never share a series', async () => {
    const one = metered();
    const two = metered();
    await one.store.append([started('r-1')]);
    expect((await one.scrape()).value('agentdeck_runs_started_total')).toBe(1);
    expect((await two.scrape()).value('agentdeck_runs_started_total')).toBe(0);
  });
});
