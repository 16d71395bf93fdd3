/**
 * Evals storage (#41): a store ability (`EvalStorage`, guard `hasEvalStore`) that keeps
 * datasets, their items in order, and experiments with the run each of their items played.
 * The runs themselves, their outputs and their scores (`score.recorded`) stay in the event
 * log; this keeps only what is not a run: which items a dataset has, and which run played
 * which item of which experiment. Everything is kept per tenant (`namespace`, `null` for
 * none): a tenant's datasets and experiments are its own, and another's answer as unknown.
 *
 * Backends implement it in `src/stores/<backend>/evals.ts`; the contract is
 * `describeEvalsContract` (src/testing/event-store-evals.ts). Docs: docs/evals.md.
 */

/** One item as added to a dataset: the input to play and, when known, the expected output. */
export interface NewDatasetItem {
  /** Unique within its dataset (the deck makes them: `item_...`). */
  id: string;
  /** An agent's message (text, or content blocks in their wire form) or a workflow's initial state. */
  input: unknown;
  /** The expected output, `null` when there is none. */
  reference: unknown;
  /** The recorded run the item was taken from, `null` for an item from a file. */
  runId: string | null;
}

/** A stored item: as added, and its place in the dataset (0, 1, 2... in the order added). */
export interface DatasetItem extends NewDatasetItem {
  position: number;
}

export interface DatasetRecord {
  namespace: string | null;
  name: string;
  description: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** A dataset as listed: its record and how many items it has. */
export interface DatasetSummary extends DatasetRecord {
  items: number;
}

export type ExperimentStatus = 'running' | 'completed' | 'failed';

/** What an experiment plays and how; the results are read from its runs. */
export interface ExperimentRecord {
  id: string;
  namespace: string | null;
  name: string;
  dataset: string;
  target: { type: 'agent' | 'workflow'; name: string };
  /** The variant applied (an agent's model, instructions, settings; a workflow's label), or `null`. */
  variant: Record<string, unknown> | null;
  /** The scorers' names, in the order they score. */
  scorers: string[];
  status: ExperimentStatus;
  /** Why a failed experiment failed, else `null`. */
  error: string | null;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** One item of an experiment: the dataset item, and the run that played it once it started. */
export interface ExperimentItem {
  itemId: string;
  runId: string | null;
}

export interface EvalStore {
  /** Store a dataset and its first items (in order); ConflictError when its tenant has one by that name. */
  createDataset(dataset: DatasetRecord, items: readonly NewDatasetItem[]): Promise<void>;
  /** A tenant's datasets with their item counts, sorted by name. */
  listDatasets(namespace: string | null): Promise<DatasetSummary[]>;
  /** One dataset, or `null`. */
  getDataset(namespace: string | null, name: string): Promise<DatasetRecord | null>;
  /** A dataset's items in the order they were added; `[]` for an unknown dataset. */
  datasetItems(namespace: string | null, name: string): Promise<DatasetItem[]>;
  /** Add items after the dataset's last; its item count after, or `null` for an unknown dataset. */
  addDatasetItems(
    namespace: string | null,
    name: string,
    items: readonly NewDatasetItem[],
  ): Promise<number | null>;
  /** Remove a dataset and its items (experiments over it stay); `false` when unknown. */
  deleteDataset(namespace: string | null, name: string): Promise<boolean>;
  /** Store an experiment and its items (in dataset order, none played yet); ConflictError on a taken id. */
  createExperiment(experiment: ExperimentRecord, itemIds: readonly string[]): Promise<void>;
  /** Record the run that plays `itemId` of experiment `id`. */
  setExperimentRun(id: string, itemId: string, runId: string): Promise<void>;
  /** Mark an experiment ended. */
  finishExperiment(id: string, status: ExperimentStatus, error: string | null): Promise<void>;
  /** One experiment of a tenant, or `null`. */
  getExperiment(namespace: string | null, id: string): Promise<ExperimentRecord | null>;
  /** A tenant's experiments (over `dataset` when given), newest first. */
  listExperiments(namespace: string | null, dataset?: string): Promise<ExperimentRecord[]>;
  /** An experiment's items in dataset order, with their runs. */
  experimentItems(id: string): Promise<ExperimentItem[]>;
}

/** An event store that keeps datasets and experiments (`store.evals`). */
export interface EvalStorage {
  readonly evals: EvalStore;
}

export function hasEvalStore(store: object): store is EvalStorage {
  const evals = (store as Partial<EvalStorage>).evals;
  return typeof evals === 'object' && evals !== null && typeof evals.createDataset === 'function';
}
