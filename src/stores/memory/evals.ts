/**
 * The memory backend's datasets and experiments (the reference for `EvalStore`, see
 * core/evals.ts), in maps keyed by tenant. Inputs and references are kept as JSON text, the
 * durable backends' stored form, so a value that would not survive them does not survive
 * here either. Every method runs to completion without awaiting, so each is atomic.
 */

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
import { datasetTaken, experimentTaken } from '../shared/evals.js';

interface StoredItem {
  id: string;
  input: string;
  reference: string;
  runId: string | null;
}

const key = (namespace: string | null, name: string) => JSON.stringify([namespace, name]);
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export class MemoryEvals implements EvalStore {
  readonly #datasets = new Map<string, { record: DatasetRecord; items: StoredItem[] }>();
  readonly #experiments = new Map<string, { record: ExperimentRecord; items: ExperimentItem[] }>();
  #order = 0;
  readonly #created = new Map<string, number>();

  readonly #checkOpen: () => void;

  /** `checkOpen` throws once the store is closed. */
  constructor(checkOpen: () => void) {
    this.#checkOpen = checkOpen;
  }

  async createDataset(dataset: DatasetRecord, items: readonly NewDatasetItem[]): Promise<void> {
    this.#checkOpen();
    const at = key(dataset.namespace, dataset.name);
    if (this.#datasets.has(at)) throw new ConflictError(datasetTaken(dataset.name));
    this.#datasets.set(at, { record: { ...dataset }, items: items.map(toStored) });
  }

  async listDatasets(namespace: string | null): Promise<DatasetSummary[]> {
    this.#checkOpen();
    return [...this.#datasets.values()]
      .filter((d) => d.record.namespace === namespace)
      .map((d) => ({ ...d.record, items: d.items.length }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async getDataset(namespace: string | null, name: string): Promise<DatasetRecord | null> {
    this.#checkOpen();
    const found = this.#datasets.get(key(namespace, name));
    return found ? { ...found.record } : null;
  }

  async datasetItems(namespace: string | null, name: string): Promise<DatasetItem[]> {
    this.#checkOpen();
    const found = this.#datasets.get(key(namespace, name));
    return (found?.items ?? []).map((item, position) => ({
      id: item.id,
      input: JSON.parse(item.input),
      reference: JSON.parse(item.reference),
      runId: item.runId,
      position,
    }));
  }

  async addDatasetItems(
    namespace: string | null,
    name: string,
    items: readonly NewDatasetItem[],
  ): Promise<number | null> {
    this.#checkOpen();
    const found = this.#datasets.get(key(namespace, name));
    if (!found) return null;
    found.items.push(...items.map(toStored));
    return found.items.length;
  }

  async deleteDataset(namespace: string | null, name: string): Promise<boolean> {
    this.#checkOpen();
    return this.#datasets.delete(key(namespace, name));
  }

  async createExperiment(experiment: ExperimentRecord, itemIds: readonly string[]): Promise<void> {
    this.#checkOpen();
    if (this.#experiments.has(experiment.id)) {
      throw new ConflictError(experimentTaken(experiment.id));
    }
    this.#experiments.set(experiment.id, {
      record: copy(experiment),
      items: itemIds.map((itemId) => ({ itemId, runId: null })),
    });
    this.#created.set(experiment.id, this.#order++);
  }

  async setExperimentRun(id: string, itemId: string, runId: string): Promise<void> {
    this.#checkOpen();
    for (const item of this.#experiments.get(id)?.items ?? []) {
      if (item.itemId === itemId) item.runId = runId;
    }
  }

  async finishExperiment(id: string, status: ExperimentStatus, error: string | null) {
    this.#checkOpen();
    const found = this.#experiments.get(id);
    if (found) Object.assign(found.record, { status, error });
  }

  async getExperiment(namespace: string | null, id: string): Promise<ExperimentRecord | null> {
    this.#checkOpen();
    const found = this.#experiments.get(id);
    return found && found.record.namespace === namespace ? copy(found.record) : null;
  }

  async listExperiments(namespace: string | null, dataset?: string): Promise<ExperimentRecord[]> {
    this.#checkOpen();
    const order = (id: string) => this.#created.get(id) ?? 0;
    return [...this.#experiments.values()]
      .map((e) => e.record)
      .filter((r) => r.namespace === namespace && (dataset === undefined || r.dataset === dataset))
      .sort((a, b) =>
        a.createdAt === b.createdAt
          ? order(b.id) - order(a.id)
          : a.createdAt < b.createdAt
            ? 1
            : -1,
      )
      .map(copy);
  }

  async experimentItems(id: string): Promise<ExperimentItem[]> {
    this.#checkOpen();
    return (this.#experiments.get(id)?.items ?? []).map((item) => ({ ...item }));
  }
}

function toStored(item: NewDatasetItem): StoredItem {
  return {
    id: item.id,
    input: JSON.stringify(item.input ?? null),
    reference: JSON.stringify(item.reference ?? null),
    runId: item.runId,
  };
}
