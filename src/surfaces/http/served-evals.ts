/**
 * What the `/evals` routes (evals.ts) need of a deck's evals (deck/evals.ts's `DeckEvals`,
 * which satisfies it structurally), declared on this side so that `surfaces/http` never
 * imports `deck/`. The experiment views are declared here and used by the deck as they are.
 */
import type {
  DatasetItem,
  DatasetRecord,
  DatasetSummary,
  ExperimentRecord,
} from '../../core/evals.js';

export interface ItemScore {
  /** `null` when the scorer threw for this item (the comment says why). */
  value: number | null;
  passed: boolean | null;
  comment: string | null;
}

export interface ExperimentResult {
  itemId: string;
  input: unknown;
  reference: unknown;
  runId: string | null;
  /**
   * How its run ended (`completed`, `failed`, `cancelled`), `running`; `pending` before it
   * started, `not_started` when the experiment ended without starting it (refused at its start).
   */
  status: string;
  output: unknown;
  scores: Record<string, ItemScore>;
  usd: number | null;
  latencyMs: number | null;
}

export interface ExperimentSummary extends ExperimentRecord {
  items: number;
  /** Items whose run ended. */
  done: number;
  scores: Record<string, { mean: number | null; passed: number; failed: number }>;
  usd: number | null;
  latencyMsP50: number | null;
}

export interface ExperimentView extends ExperimentSummary {
  results: ExperimentResult[];
}

export interface EvalsTenant {
  namespace?: string;
}

export interface ServedScorer {
  name: string;
  description: string;
  kind: 'code' | 'judge';
  threshold: number | null;
}

export interface ServedEvals {
  readonly scorers: ReadonlyMap<string, ServedScorer>;
  listDatasets(tenant: EvalsTenant): Promise<DatasetSummary[]>;
  createDataset(
    dataset: { name: string; description?: string; items?: unknown; runs?: unknown },
    tenant: EvalsTenant,
  ): Promise<DatasetSummary | undefined>;
  getDataset(name: string, tenant: EvalsTenant): Promise<DatasetRecord & { items: DatasetItem[] }>;
  addItems(
    name: string,
    add: { items?: unknown; runs?: unknown },
    tenant: EvalsTenant,
  ): Promise<{ added: number; items: number }>;
  deleteDataset(name: string, tenant: EvalsTenant): Promise<void>;
  startExperiment(
    options: {
      dataset: string;
      agent?: string;
      workflow?: string;
      name?: string;
      variant?: Record<string, unknown>;
      scorers?: string[];
      concurrency?: number;
    },
    tenant: EvalsTenant,
  ): Promise<{ id: string; name: string; status: 'running' }>;
  listExperiments(filter: { dataset?: string } & EvalsTenant): Promise<ExperimentSummary[]>;
  getExperiment(id: string, tenant: EvalsTenant): Promise<ExperimentView>;
}
