/** Types of trace-bars.js (plain JavaScript the browser runs), for its tests. */
import type { WireEvent } from './timeline.js';

export type BarKind = 'run' | 'model' | 'tool' | 'node' | 'wait' | 'pause' | 'failure';

export interface Bar {
  id: string;
  kind: BarKind;
  label: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  /** `ok`, `error` (a failed call or run), `cut` (the run stopped it), `open` (still running). */
  status: 'ok' | 'error' | 'cut' | 'open';
  seq: number;
  events: WireEvent[];
  callId?: string;
  name?: string;
  model?: string | null;
  tokens?: { input: number; output: number } | null;
  usd?: number | null;
  error?: string | null;
  inferred?: boolean;
  timed?: boolean;
  where?: string | null;
  childRunId?: string;
  [field: string]: unknown;
}

export interface Trace {
  start: number;
  end: number;
  bars: Bar[];
}

export function traceBars(events: readonly WireEvent[], now?: number): Trace;
export function linkChildRuns(
  bars: readonly Bar[],
  children: readonly { run_id: string; origin: string; started_at: string }[],
  toolName: (origin: string) => string,
): Bar[];
