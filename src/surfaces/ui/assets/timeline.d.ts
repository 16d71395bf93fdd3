/** Types of timeline.js (plain JavaScript the browser runs), for its tests. */
export interface WireEvent {
  kind: string;
  seq: number;
  ts: string;
  payload?: unknown;
  [field: string]: unknown;
}

export interface Entry {
  type: string;
  seq: number;
  ts: string;
  events: WireEvent[];
  [field: string]: unknown;
}

export function fold(entries: Entry[], event: WireEvent): Entry[];
export function textOf(blocks: unknown): string;
