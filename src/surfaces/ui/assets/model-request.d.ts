/** Types of model-request.js (plain JavaScript the browser runs), for its tests. */
import type { WireEvent } from './timeline.js';

export interface Resolved {
  digest: string;
  value: unknown;
  /** No event of the run holds this digest's value (`detail: metadata`, or pruned). */
  missing: boolean;
}

export interface ModelRequest {
  callId: string;
  model: string | null;
  settings: Record<string, unknown>;
  detail: 'full' | 'metadata';
  instructions: Resolved | null;
  tools: Resolved[];
  messages: Resolved[];
  /** The `model.call.completed` payload (wire form); `null` while the request runs. */
  response: Record<string, unknown> | null;
  seq: number;
  ts: string;
}

export function modelRequest(events: readonly WireEvent[], callId: string): ModelRequest | null;
