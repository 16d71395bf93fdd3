/**
 * What the SQL backends' evals storage (core/evals.ts) shares: the messages of its refusals
 * and the mapping of its rows. Inputs, references, variants and scorer lists are kept as JSON
 * text on both SQL backends.
 */
import type { DatasetItem, ExperimentRecord, ExperimentStatus } from '../../core/evals.js';

export const datasetTaken = (name: string) =>
  `a dataset named '${name}' already exists; pick another name, or add items to it`;

export const experimentTaken = (id: string) => `an experiment with id '${id}' already exists`;

/** A tenant as the SQL tables key it: `''` for none, since a key column cannot be NULL. */
export const tenantKey = (namespace: string | null): string => namespace ?? '';
export const tenantOf = (key: string): string | null => (key === '' ? null : key);

export interface ItemRow {
  id: string;
  position: number | string;
  input: string;
  reference: string;
  run_id: string | null;
}

export function itemFromRow(row: ItemRow): DatasetItem {
  return {
    id: row.id,
    position: Number(row.position),
    input: JSON.parse(row.input),
    reference: JSON.parse(row.reference),
    runId: row.run_id,
  };
}

export interface ExperimentRow {
  id: string;
  namespace: string;
  name: string;
  dataset: string;
  target_type: string;
  target_name: string;
  variant: string;
  scorers: string;
  status: string;
  error: string | null;
  created_at: string;
}

export function experimentFromRow(row: ExperimentRow): ExperimentRecord {
  return {
    id: row.id,
    namespace: tenantOf(row.namespace),
    name: row.name,
    dataset: row.dataset,
    target: { type: row.target_type === 'workflow' ? 'workflow' : 'agent', name: row.target_name },
    variant: JSON.parse(row.variant),
    scorers: JSON.parse(row.scorers),
    status: row.status as ExperimentStatus,
    error: row.error,
    createdAt: row.created_at,
  };
}

/** An experiment's columns in `ExperimentRow`'s order, as bound parameters. */
export function experimentParams(e: ExperimentRecord): (string | null)[] {
  return [
    e.id,
    tenantKey(e.namespace),
    e.name,
    e.dataset,
    e.target.type,
    e.target.name,
    JSON.stringify(e.variant),
    JSON.stringify(e.scorers),
    e.status,
    e.error,
    e.createdAt,
  ];
}
