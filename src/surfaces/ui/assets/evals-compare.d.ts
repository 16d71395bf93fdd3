/** Types of evals-compare.js (plain JavaScript the browser runs), for its tests. */
export interface ItemScore {
  value: number | null;
  passed: boolean | null;
  comment?: string | null;
}

export interface ItemResult {
  item_id: string;
  input: unknown;
  reference: unknown;
  run_id: string | null;
  status: string;
  output: unknown;
  scores: Record<string, ItemScore>;
  usd: number | null;
  latency_ms: number | null;
}

export interface ExperimentDetail {
  id: string;
  name: string;
  dataset: string;
  scorers: string[];
  status: string;
  items: number;
  done: number;
  scores: Record<string, { mean: number | null; passed: number; failed: number }>;
  usd: number | null;
  latency_ms_p50: number | null;
  results?: ItemResult[];
  [field: string]: unknown;
}

export interface Pair {
  item_id: string;
  input: unknown;
  reference: unknown;
  a: ItemResult | null;
  b: ItemResult | null;
}

export interface Versus {
  a: number | null;
  b: number | null;
  delta: number | null;
  better: 'a' | 'b' | null;
}

export interface Summary {
  scorers: {
    name: string;
    mean: Versus;
    passed: Versus;
    failed: { a: number | null; b: number | null };
    wins: { a: number; b: number; ties: number };
  }[];
  usd: Versus;
  latency: Versus;
  done: { a: number; b: number; items: number };
}

export interface ExperimentForm {
  dataset: string;
  targetType: 'agent' | 'workflow';
  target: string;
  name?: string;
  model?: string;
  instructions?: string;
  settings?: string;
  scorers?: string[];
  concurrency?: string | number;
}

export function pairResults(
  a: ExperimentDetail | null | undefined,
  b: ExperimentDetail | null | undefined,
): Pair[];
export function versus(
  a: number | null | undefined,
  b: number | null | undefined,
  options?: { lowerIsBetter?: boolean },
): Versus;
export function scorerNames(a: ExperimentDetail | null, b: ExperimentDetail | null): string[];
export function summarize(a: ExperimentDetail | null, b: ExperimentDetail | null): Summary;
export function itemScores(
  row: Pair,
  names: string[],
): {
  name: string;
  a: ItemScore | null;
  b: ItemScore | null;
  delta: number | null;
  better: 'a' | 'b' | null;
}[];
export function differs(row: Pair, names: string[]): boolean;
export function experimentBody(
  form: ExperimentForm,
):
  | { body: Record<string, unknown>; error?: never }
  | { error: { field: string; message: string }; body?: never };
export function shown(value: unknown): string;
export function scoreText(value: unknown): string;
export function deltaText(delta: number | null, unit?: (size: number) => string): string;
export function variantText(variant: Record<string, unknown> | null | undefined): string;
