/**
 * The Postgres event store's datasets and experiments (the `EvalStore` ability,
 * core/evals.ts; tables of migration 9), shared by every process on the database. Adding
 * items to a dataset locks its row (`FOR UPDATE`) in the transaction that reads the last
 * position and writes after it, so two processes adding at once keep one order.
 */
import type pg from 'pg';
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
import {
  datasetTaken,
  type ExperimentRow,
  experimentFromRow,
  experimentParams,
  experimentTaken,
  type ItemRow,
  itemFromRow,
  tenantKey,
} from '../shared/evals.js';
import { inTransaction } from './pool.js';

const EXPERIMENT_COLUMNS =
  'id, namespace, name, dataset, target_type, target_name, variant, scorers, status, error, created_at';

const SQL = {
  dataset: `SELECT name, description, created_at FROM eval_datasets
    WHERE namespace = $1 AND name = $2`,
  lockDataset: 'SELECT 1 FROM eval_datasets WHERE namespace = $1 AND name = $2 FOR UPDATE',
  insertDataset: `INSERT INTO eval_datasets (namespace, name, description, created_at)
    VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
  listDatasets: `SELECT d.name, d.description, d.created_at,
      (SELECT count(*) FROM eval_items i WHERE i.namespace = d.namespace AND i.dataset = d.name)::int AS items
    FROM eval_datasets d WHERE d.namespace = $1 ORDER BY d.name`,
  nextPosition: `SELECT coalesce(max(position) + 1, 0)::int AS next FROM eval_items
    WHERE namespace = $1 AND dataset = $2`,
  // One statement per batch: the items as a JSON array, numbered from $3.
  insertItems: `INSERT INTO eval_items (namespace, dataset, position, id, input, reference, run_id)
    SELECT $1, $2, $3 + (x.ord - 1)::int, x.item->>'id', x.item->>'input', x.item->>'reference',
      x.item->>'run_id'
    FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS x(item, ord)`,
  items: `SELECT id, position, input, reference, run_id FROM eval_items
    WHERE namespace = $1 AND dataset = $2 ORDER BY position`,
  deleteDataset: `WITH items_gone AS (
      DELETE FROM eval_items WHERE namespace = $1 AND dataset = $2
    ) DELETE FROM eval_datasets WHERE namespace = $1 AND name = $2`,
  insertExperiment: `INSERT INTO eval_experiments (${EXPERIMENT_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
  insertExperimentItems: `INSERT INTO eval_experiment_items (experiment_id, position, item_id)
    SELECT $1, (x.ord - 1)::int, x.item_id
    FROM unnest($2::text[]) WITH ORDINALITY AS x(item_id, ord)`,
  setRun: 'UPDATE eval_experiment_items SET run_id = $1 WHERE experiment_id = $2 AND item_id = $3',
  finish: 'UPDATE eval_experiments SET status = $1, error = $2 WHERE id = $3',
  experiment: `SELECT ${EXPERIMENT_COLUMNS} FROM eval_experiments WHERE namespace = $1 AND id = $2`,
  experiments: `SELECT ${EXPERIMENT_COLUMNS} FROM eval_experiments
    WHERE namespace = $1 AND ($2::text IS NULL OR dataset = $2) ORDER BY created_at DESC, ord DESC`,
  experimentItems: `SELECT item_id, run_id FROM eval_experiment_items
    WHERE experiment_id = $1 ORDER BY position`,
} as const;

/** Runs a body on the open store, a driver failure made a StoreError naming the database. */
type Query = <T>(what: string, body: () => Promise<T>) => Promise<T>;

export class PostgresEvals implements EvalStore {
  readonly #pool: pg.Pool;
  readonly #query: Query;

  constructor(pool: pg.Pool, query: Query) {
    this.#pool = pool;
    this.#query = query;
  }

  async createDataset(dataset: DatasetRecord, items: readonly NewDatasetItem[]): Promise<void> {
    const ns = tenantKey(dataset.namespace);
    await this.#query(`create dataset '${dataset.name}'`, () =>
      inTransaction(this.#pool, async (client) => {
        const { rowCount } = await client.query(SQL.insertDataset, [
          ns,
          dataset.name,
          dataset.description,
          dataset.createdAt,
        ]);
        if (!rowCount) throw new ConflictError(datasetTaken(dataset.name));
        await insertItems(client, ns, dataset.name, 0, items);
      }),
    );
  }

  async listDatasets(namespace: string | null): Promise<DatasetSummary[]> {
    const { rows } = await this.#query('list datasets', () =>
      this.#pool.query(SQL.listDatasets, [tenantKey(namespace)]),
    );
    return rows.map((row) => ({
      namespace,
      name: row.name,
      description: row.description,
      createdAt: row.created_at,
      items: Number(row.items),
    }));
  }

  async getDataset(namespace: string | null, name: string): Promise<DatasetRecord | null> {
    const { rows } = await this.#query(`read dataset '${name}'`, () =>
      this.#pool.query(SQL.dataset, [tenantKey(namespace), name]),
    );
    const row = rows[0];
    return row
      ? { namespace, name: row.name, description: row.description, createdAt: row.created_at }
      : null;
  }

  async datasetItems(namespace: string | null, name: string): Promise<DatasetItem[]> {
    const { rows } = await this.#query(`read the items of dataset '${name}'`, () =>
      this.#pool.query<ItemRow>(SQL.items, [tenantKey(namespace), name]),
    );
    return rows.map(itemFromRow);
  }

  async addDatasetItems(
    namespace: string | null,
    name: string,
    items: readonly NewDatasetItem[],
  ): Promise<number | null> {
    const ns = tenantKey(namespace);
    return this.#query(`add items to dataset '${name}'`, () =>
      inTransaction(this.#pool, async (client) => {
        const locked = await client.query(SQL.lockDataset, [ns, name]);
        if (!locked.rowCount) return null;
        const { rows } = await client.query(SQL.nextPosition, [ns, name]);
        const next = Number(rows[0]?.next ?? 0);
        await insertItems(client, ns, name, next, items);
        return next + items.length;
      }),
    );
  }

  async deleteDataset(namespace: string | null, name: string): Promise<boolean> {
    const { rowCount } = await this.#query(`delete dataset '${name}'`, () =>
      this.#pool.query(SQL.deleteDataset, [tenantKey(namespace), name]),
    );
    return Boolean(rowCount);
  }

  async createExperiment(experiment: ExperimentRecord, itemIds: readonly string[]): Promise<void> {
    await this.#query(`create experiment '${experiment.id}'`, () =>
      inTransaction(this.#pool, async (client) => {
        const { rowCount } = await client.query(SQL.insertExperiment, experimentParams(experiment));
        if (!rowCount) throw new ConflictError(experimentTaken(experiment.id));
        await client.query(SQL.insertExperimentItems, [experiment.id, [...itemIds]]);
      }),
    );
  }

  async setExperimentRun(id: string, itemId: string, runId: string): Promise<void> {
    await this.#query(`record the run of experiment '${id}'`, () =>
      this.#pool.query(SQL.setRun, [runId, id, itemId]),
    );
  }

  async finishExperiment(id: string, status: ExperimentStatus, error: string | null) {
    await this.#query(`end experiment '${id}'`, () =>
      this.#pool.query(SQL.finish, [status, error, id]),
    );
  }

  async getExperiment(namespace: string | null, id: string): Promise<ExperimentRecord | null> {
    const { rows } = await this.#query(`read experiment '${id}'`, () =>
      this.#pool.query<ExperimentRow>(SQL.experiment, [tenantKey(namespace), id]),
    );
    return rows[0] ? experimentFromRow(rows[0]) : null;
  }

  async listExperiments(namespace: string | null, dataset?: string): Promise<ExperimentRecord[]> {
    const { rows } = await this.#query('list experiments', () =>
      this.#pool.query<ExperimentRow>(SQL.experiments, [tenantKey(namespace), dataset ?? null]),
    );
    return rows.map(experimentFromRow);
  }

  async experimentItems(id: string): Promise<ExperimentItem[]> {
    const { rows } = await this.#query(`read the items of experiment '${id}'`, () =>
      this.#pool.query<{ item_id: string; run_id: string | null }>(SQL.experimentItems, [id]),
    );
    return rows.map((row) => ({ itemId: row.item_id, runId: row.run_id }));
  }
}

async function insertItems(
  client: pg.PoolClient,
  ns: string,
  dataset: string,
  from: number,
  items: readonly NewDatasetItem[],
): Promise<void> {
  if (items.length === 0) return;
  const json = items.map((item) => ({
    id: item.id,
    input: JSON.stringify(item.input ?? null),
    reference: JSON.stringify(item.reference ?? null),
    run_id: item.runId,
  }));
  await client.query(SQL.insertItems, [ns, dataset, from, JSON.stringify(json)]);
}
