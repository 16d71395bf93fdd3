/**
 * The evals part of the event store contract: the optional EvalStore ability (core/evals.ts).
 * Datasets keep their items in the order added, across batches, with their values as given;
 * a name is taken once per tenant; a tenant sees only its own datasets and experiments; an
 * experiment keeps its items in dataset order and the run each played; and a score recorded
 * after a run's terminal event (how experiments record them) is kept without changing the
 * run's status. Each case keeps to its own tenant, so a backend may share one database
 * between tests. Registered by `describeEventStoreContract` inside its suite.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError } from '../core/errors.js';
import { type ExperimentRecord, hasEvalStore, type NewDatasetItem } from '../core/evals.js';
import type { EventStore } from '../core/store.js';
import { ev, run, uid } from './event-store-events.js';

const SKIP = 'the store keeps no datasets (hasEvalStore)';

const item = (input: unknown, reference: unknown = null, runId: string | null = null) =>
  ({ id: uid('item'), input, reference, runId }) satisfies NewDatasetItem;

function experiment(
  namespace: string | null,
  dataset: string,
  createdAt: string,
): ExperimentRecord {
  return {
    id: uid('exp'),
    namespace,
    name: 'baseline',
    dataset,
    target: { type: 'agent', name: 'Helper' },
    variant: { model: 'gpt-test' },
    scorers: ['exact', 'judge'],
    status: 'running',
    error: null,
    createdAt,
  };
}

export function describeEvalsContract(current: () => EventStore): void {
  describe('evals', () => {
    const evalsOf = () => {
      const store = current();
      if (!hasEvalStore(store)) throw new Error('no evals');
      return store.evals;
    };
    const skip = () => !hasEvalStore(current());

    it('keeps a dataset and its items in the order added, values as given', async (ctx) => {
      if (skip()) return ctx.skip(SKIP);
      const evals = evalsOf();
      const ns = uid('tenant');
      const first = [
        item('one', 'uno', 'run-1'),
        item({ topic: 'b', n: [1, 2] }),
        item([{ type: 'text', text: 'three' }], { ok: true }),
      ];
      await evals.createDataset(
        {
          namespace: ns,
          name: 'qa',
          description: 'questions',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
        first,
      );
      const more = [item('four'), item('five', 5)];
      expect(await evals.addDatasetItems(ns, 'qa', more)).toBe(5);
      expect(await evals.addDatasetItems(ns, 'qa', [])).toBe(5);
      const items = await evals.datasetItems(ns, 'qa');
      expect(items).toEqual([...first, ...more].map((x, position) => ({ ...x, position })));
      expect(await evals.getDataset(ns, 'qa')).toEqual({
        namespace: ns,
        name: 'qa',
        description: 'questions',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect(await evals.addDatasetItems(ns, 'missing', [item('x')])).toBeNull();
      expect(await evals.datasetItems(ns, 'missing')).toEqual([]);
      expect(await evals.getDataset(ns, 'missing')).toBeNull();
    });

    it('lists a tenant’s datasets by name with their counts; a name is taken once per tenant', async (ctx) => {
      if (skip()) return ctx.skip(SKIP);
      const evals = evalsOf();
      const [ns, other] = [uid('tenant'), uid('tenant')];
      const at = new Date().toISOString();
      await evals.createDataset({ namespace: ns, name: 'b-set', description: '', createdAt: at }, [
        item(1),
      ]);
      await evals.createDataset(
        { namespace: ns, name: 'a-set', description: 'first', createdAt: at },
        [],
      );
      await evals.createDataset(
        { namespace: other, name: 'a-set', description: 'theirs', createdAt: at },
        [item(1), item(2)],
      );
      await expect(
        evals.createDataset({ namespace: ns, name: 'a-set', description: 'again', createdAt: at }, [
          item(3),
        ]),
      ).rejects.toThrow(ConflictError);
      expect(await evals.listDatasets(ns)).toEqual([
        { namespace: ns, name: 'a-set', description: 'first', createdAt: at, items: 0 },
        { namespace: ns, name: 'b-set', description: '', createdAt: at, items: 1 },
      ]);
      expect((await evals.listDatasets(other)).map((d) => [d.name, d.items])).toEqual([
        ['a-set', 2],
      ]);
      expect(await evals.datasetItems(ns, 'a-set')).toEqual([]);
      expect(await evals.deleteDataset(ns, 'a-set')).toBe(true);
      expect(await evals.deleteDataset(ns, 'a-set')).toBe(false);
      expect((await evals.listDatasets(ns)).map((d) => d.name)).toEqual(['b-set']);
      expect((await evals.listDatasets(other)).map((d) => d.items)).toEqual([2]);
      // The name is free again, with none of the old items.
      await evals.createDataset(
        { namespace: ns, name: 'b-set-2', description: '', createdAt: at },
        [],
      );
      expect(await evals.deleteDataset(ns, 'b-set')).toBe(true);
      expect(await evals.datasetItems(ns, 'b-set')).toEqual([]);
    });

    it('keeps experiments per tenant, newest first, with their items’ runs in order', async (ctx) => {
      if (skip()) return ctx.skip(SKIP);
      const evals = evalsOf();
      const [ns, other] = [uid('tenant'), uid('tenant')];
      const older = experiment(ns, 'qa', '2026-01-01T00:00:00.000Z');
      const newer = experiment(ns, 'qa', '2026-01-02T00:00:00.000Z');
      const elsewhere = experiment(ns, 'other-set', '2026-01-03T00:00:00.000Z');
      const theirs = experiment(other, 'qa', '2026-01-04T00:00:00.000Z');
      await evals.createExperiment(older, ['i1', 'i2', 'i3']);
      await evals.createExperiment(newer, []);
      await evals.createExperiment(elsewhere, ['i1']);
      await evals.createExperiment(theirs, ['i1']);
      await expect(evals.createExperiment(older, ['i9'])).rejects.toThrow(ConflictError);
      expect((await evals.listExperiments(ns)).map((e) => e.id)).toEqual([
        elsewhere.id,
        newer.id,
        older.id,
      ]);
      expect((await evals.listExperiments(ns, 'qa')).map((e) => e.id)).toEqual([
        newer.id,
        older.id,
      ]);
      expect(await evals.getExperiment(ns, older.id)).toEqual(older);
      expect(await evals.getExperiment(other, older.id)).toBeNull();
      expect(await evals.getExperiment(ns, theirs.id)).toBeNull();

      await evals.setExperimentRun(older.id, 'i2', 'run-b');
      await evals.setExperimentRun(older.id, 'i1', 'run-a');
      expect(await evals.experimentItems(older.id)).toEqual([
        { itemId: 'i1', runId: 'run-a' },
        { itemId: 'i2', runId: 'run-b' },
        { itemId: 'i3', runId: null },
      ]);
      await evals.finishExperiment(older.id, 'failed', 'the model was down');
      expect(await evals.getExperiment(ns, older.id)).toEqual({
        ...older,
        status: 'failed',
        error: 'the model was down',
      });
      expect(await evals.experimentItems(uid('exp'))).toEqual([]);
    });

    it('keeps a score recorded after a run ended, and the run’s status', async (ctx) => {
      if (skip()) return ctx.skip(SKIP);
      const store = current();
      const r = run();
      await store.append([ev.started(r), ev.completed(r)]);
      const [score] = await store.append([
        {
          ...r,
          kind: 'score.recorded',
          payload: { name: 'exact', value: 1, passed: true, comment: null, experiment: 'exp-1' },
        },
      ]);
      expect(score?.seq).toBe(2);
      expect((await store.read(r.runId)).map((e) => e.kind)).toEqual([
        'run.started',
        'run.completed',
        'score.recorded',
      ]);
      expect((await store.getRun(r.runId))?.status).toBe('completed');
    });
  });
}
