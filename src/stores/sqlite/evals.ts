/**
 * The SQLite event store's datasets and experiments (the `EvalStore` ability, core/evals.ts;
 * tables of migration 9, so every process on the file shares them). Writes run in the
 * connection's write transactions (`GroupCommit.transaction`: they commit an open group with
 * them and flush the other connections' first), so adding items reads the last position and
 * writes after it under the file's one write lock; reads flush the others' groups first.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { ConflictError } from '../../core/errors.js';
import type {
  DatasetItem,
  DatasetRecord,
  DatasetSummary,
  EvalStore,
  ExperimentItem,
  ExperimentRecord,
  ExperimentStatus,
  NewDatasetItem,
} from '../../core/evals.js';
import { storeFailure } from '../shared/driver-errors.js';
import {
  datasetTaken,
  type ExperimentRow,
  experimentFromRow,
  experimentParams,
  experimentTaken,
  itemFromRow,
  tenantKey,
} from '../shared/evals.js';
import { prepareAll } from './database.js';
import type { GroupCommit } from './group-commit.js';

const EXPERIMENT_COLUMNS =
  'id, namespace, name, dataset, target_type, target_name, variant, scorers, status, error, created_at';

const EVALS_SQL = {
  dataset:
    'SELECT name, description, created_at FROM eval_datasets WHERE namespace = ? AND name = ?',
  insertDataset:
    'INSERT INTO eval_datasets (namespace, name, description, created_at) VALUES (?, ?, ?, ?)',
  listDatasets: `SELECT d.name, d.description, d.created_at,
      (SELECT count(*) FROM eval_items i WHERE i.namespace = d.namespace AND i.dataset = d.name) AS items
    FROM eval_datasets d WHERE d.namespace = ? ORDER BY d.name`,
  nextPosition: `SELECT coalesce(max(position) + 1, 0) AS next FROM eval_items
    WHERE namespace = ? AND dataset = ?`,
  insertItem: `INSERT INTO eval_items (namespace, dataset, position, id, input, reference, run_id)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  items: `SELECT id, position, input, reference, run_id FROM eval_items
    WHERE namespace = ? AND dataset = ? ORDER BY position`,
  deleteItems: 'DELETE FROM eval_items WHERE namespace = ? AND dataset = ?',
  deleteDataset: 'DELETE FROM eval_datasets WHERE namespace = ? AND name = ?',
  experimentExists: 'SELECT 1 AS found FROM eval_experiments WHERE id = ?',
  insertExperiment: `INSERT INTO eval_experiments (${EXPERIMENT_COLUMNS})
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insertExperimentItem: `INSERT INTO eval_experiment_items (experiment_id, position, item_id, run_id)
    VALUES (?, ?, ?, NULL)`,
  setRun: 'UPDATE eval_experiment_items SET run_id = ? WHERE experiment_id = ? AND item_id = ?',
  finish: 'UPDATE eval_experiments SET status = ?, error = ? WHERE id = ?',
  experiment: `SELECT ${EXPERIMENT_COLUMNS} FROM eval_experiments WHERE namespace = ? AND id = ?`,
  experiments: `SELECT ${EXPERIMENT_COLUMNS} FROM eval_experiments
    WHERE namespace = ?1 AND (?2 IS NULL OR dataset = ?2) ORDER BY created_at DESC, rowid DESC`,
  experimentItems: `SELECT item_id, run_id FROM eval_experiment_items
    WHERE experiment_id = ? ORDER BY position`,
} as const;

export class SqliteEvals implements EvalStore {
  readonly #sql: { [K in keyof typeof EVALS_SQL]: StatementSync };
  readonly #writes: GroupCommit;
  readonly #path: string;
  /** Throws once the store is closed. */
  readonly #ready: () => void;

  constructor(db: DatabaseSync, writes: GroupCommit, path: string, ready: () => void) {
    this.#sql = prepareAll(db, EVALS_SQL);
    this.#writes = writes;
    this.#path = path;
    this.#ready = ready;
  }

  async createDataset(dataset: DatasetRecord, items: readonly NewDatasetItem[]): Promise<void> {
    const ns = tenantKey(dataset.namespace);
    this.#write(`create dataset '${dataset.name}'`, () => {
      if (this.#sql.dataset.get(ns, dataset.name)) {
        throw new ConflictError(datasetTaken(dataset.name));
      }
      this.#sql.insertDataset.run(ns, dataset.name, dataset.description, dataset.createdAt);
      this.#insertItems(ns, dataset.name, 0, items);
    });
  }

  async listDatasets(namespace: string | null): Promise<DatasetSummary[]> {
    return this.#read('list datasets', () =>
      this.#sql.listDatasets.all(tenantKey(namespace)).map((row) => ({
        namespace,
        name: String(row.name),
        description: String(row.description),
        createdAt: String(row.created_at),
        items: Number(row.items),
      })),
    );
  }

  async getDataset(namespace: string | null, name: string): Promise<DatasetRecord | null> {
    const row = this.#read(`read dataset '${name}'`, () =>
      this.#sql.dataset.get(tenantKey(namespace), name),
    );
    if (!row) return null;
    return {
      namespace,
      name: String(row.name),
      description: String(row.description),
      createdAt: String(row.created_at),
    };
  }

  async datasetItems(namespace: string | null, name: string): Promise<DatasetItem[]> {
    return this.#read(`read the items of dataset '${name}'`, () =>
      this.#sql.items.all(tenantKey(namespace), name).map((row) => itemFromRow(row as never)),
    );
  }

  async addDatasetItems(
    namespace: string | null,
    name: string,
    items: readonly NewDatasetItem[],
  ): Promise<number | null> {
    const ns = tenantKey(namespace);
    return this.#write(`add items to dataset '${name}'`, () => {
      if (!this.#sql.dataset.get(ns, name)) return null;
      const next = Number((this.#sql.nextPosition.get(ns, name) as { next: number }).next);
      this.#insertItems(ns, name, next, items);
      return next + items.length;
    });
  }

  async deleteDataset(namespace: string | null, name: string): Promise<boolean> {
    const ns = tenantKey(namespace);
    return this.#write(`delete dataset '${name}'`, () => {
      this.#sql.deleteItems.run(ns, name);
      return Number(this.#sql.deleteDataset.run(ns, name).changes) > 0;
    });
  }

  async createExperiment(experiment: ExperimentRecord, itemIds: readonly string[]): Promise<void> {
    this.#write(`create experiment '${experiment.id}'`, () => {
      if (this.#sql.experimentExists.get(experiment.id)) {
        throw new ConflictError(experimentTaken(experiment.id));
      }
      this.#sql.insertExperiment.run(...(experimentParams(experiment) as SQLInputValue[]));
      itemIds.forEach((itemId, position) => {
        this.#sql.insertExperimentItem.run(experiment.id, position, itemId);
      });
    });
  }

  async setExperimentRun(id: string, itemId: string, runId: string): Promise<void> {
    this.#write(`record the run of experiment '${id}'`, () =>
      this.#sql.setRun.run(runId, id, itemId),
    );
  }

  async finishExperiment(id: string, status: ExperimentStatus, error: string | null) {
    this.#write(`end experiment '${id}'`, () => this.#sql.finish.run(status, error, id));
  }

  async getExperiment(namespace: string | null, id: string): Promise<ExperimentRecord | null> {
    const row = this.#read(`read experiment '${id}'`, () =>
      this.#sql.experiment.get(tenantKey(namespace), id),
    );
    return row ? experimentFromRow(row as unknown as ExperimentRow) : null;
  }

  async listExperiments(namespace: string | null, dataset?: string): Promise<ExperimentRecord[]> {
    return this.#read('list experiments', () =>
      this.#sql.experiments
        .all(tenantKey(namespace), dataset ?? null)
        .map((row) => experimentFromRow(row as unknown as ExperimentRow)),
    );
  }

  async experimentItems(id: string): Promise<ExperimentItem[]> {
    return this.#read(`read the items of experiment '${id}'`, () =>
      this.#sql.experimentItems.all(id).map((row) => ({
        itemId: String(row.item_id),
        runId: row.run_id === null ? null : String(row.run_id),
      })),
    );
  }

  #insertItems(ns: string, dataset: string, from: number, items: readonly NewDatasetItem[]) {
    items.forEach((item, i) => {
      this.#sql.insertItem.run(
        ns,
        dataset,
        from + i,
        item.id,
        JSON.stringify(item.input ?? null),
        JSON.stringify(item.reference ?? null),
        item.runId,
      );
    });
  }

  /** Run a driver call on the open store, a driver failure made a StoreError naming the file. */
  #guard<T>(what: string, body: () => T): T {
    this.#ready();
    try {
      return body();
    } catch (error) {
      throw storeFailure(
        'sqlite',
        `SQLite event store at '${this.#path}' could not ${what}`,
        error,
      );
    }
  }

  #write<T>(what: string, body: () => T): T {
    return this.#guard(what, () => this.#writes.transaction(body));
  }

  #read<T>(what: string, body: () => T): T {
    return this.#guard(what, () => {
      this.#writes.flushOthers();
      return body();
    });
  }
}
