/**
 * An experiment's results, read back (#41, docs/evals.md): the store's item→run map, and
 * each run's own events: its status, output (run.completed), cost (the `usd` of its
 * usage.reported events), latency (from run.started to its terminal event) and the scores
 * this experiment recorded on it (score.recorded). A scorer that threw left a `custom` event
 * `{type: 'score.failed', name, experiment, error}` instead of a score; it shows as a score
 * with no value and the error as its comment. Nothing here is kept apart from the runs.
 */
import type { DatasetItem, EvalStore, ExperimentRecord } from '../core/evals.js';
import type { Event } from '../core/events.js';
import type { EventLog } from '../surfaces/http/served-deck.js';
import type {
  ExperimentResult,
  ExperimentSummary,
  ExperimentView,
  ItemScore,
} from '../surfaces/http/served-evals.js';
import { outputOf, runEnding } from './dataset-items.js';

/** The custom event's `type` that marks a scorer that threw. */
export const SCORE_FAILED = 'score.failed';

/** An experiment with its results, in dataset item order. */
export async function readExperiment(
  evals: EvalStore,
  log: EventLog,
  record: ExperimentRecord,
): Promise<ExperimentView> {
  const [items, dataset] = await Promise.all([
    evals.experimentItems(record.id),
    evals.datasetItems(record.namespace, record.dataset),
  ]);
  const byId = new Map<string, DatasetItem>(dataset.map((item) => [item.id, item]));
  const results = await Promise.all(
    items.map(async ({ itemId, runId }) => {
      const item = byId.get(itemId);
      const events = runId ? await log.read(runId) : [];
      return resultOf(record, itemId, item, runId, events);
    }),
  );
  return { ...summarize(record, results), results };
}

function resultOf(
  record: ExperimentRecord,
  itemId: string,
  item: DatasetItem | undefined,
  runId: string | null,
  events: readonly Event[],
): ExperimentResult {
  const { started, ended } = runEnding(events);
  const scores: Record<string, ItemScore> = {};
  let usd: number | null = null;
  for (const event of events) {
    if (event.kind === 'usage.reported' && event.payload.usd !== null) {
      usd = (usd ?? 0) + event.payload.usd;
    } else if (event.kind === 'score.recorded' && event.payload.experiment === record.id) {
      const { name, value, passed, comment } = event.payload;
      scores[name] = { value, passed, comment };
    } else if (event.kind === 'custom') {
      const data = event.payload.data as Record<string, unknown> | null;
      if (data?.type === SCORE_FAILED && data.experiment === record.id) {
        scores[String(data.name)] = { value: null, passed: null, comment: String(data.error) };
      }
    }
  }
  const workflow = record.target.type === 'workflow';
  return {
    itemId,
    input: item?.input ?? null,
    reference: item?.reference ?? null,
    runId,
    status: !runId
      ? record.status === 'running'
        ? 'pending'
        : 'not_started'
      : (ended?.kind.slice('run.'.length) ?? 'running'),
    output: ended?.kind === 'run.completed' ? outputOf(ended.payload.output, workflow) : null,
    scores,
    usd,
    latencyMs: started && ended ? Math.max(0, Date.parse(ended.ts) - Date.parse(started.ts)) : null,
  };
}

/** The per-scorer means and counts, cost and median latency over the results. */
export function summarize(
  record: ExperimentRecord,
  results: readonly ExperimentResult[],
): ExperimentSummary {
  const scores: ExperimentSummary['scores'] = {};
  for (const name of record.scorers) {
    const values = results
      .map((r) => r.scores[name])
      .filter((s): s is ItemScore & { value: number } => typeof s?.value === 'number');
    scores[name] = {
      mean: values.length ? values.reduce((sum, s) => sum + s.value, 0) / values.length : null,
      passed: values.filter((s) => s.passed === true).length,
      failed: values.filter((s) => s.passed === false).length,
    };
  }
  const costs = results.map((r) => r.usd).filter((u): u is number => u !== null);
  const latencies = results
    .map((r) => r.latencyMs)
    .filter((l): l is number => l !== null)
    .sort((a, b) => a - b);
  return {
    ...record,
    items: results.length,
    done: results.filter((r) => r.status !== 'pending' && r.status !== 'running').length,
    scores,
    usd: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
    latencyMsP50: median(latencies),
  };
}

function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
