/**
 * What the HTTP surface sees of `deck.replay()`, `deck.checkpoints()` and `deck.fork()` (#41):
 * their options and results as `ServedDeck` declares them (surfaces/http imports no deck/
 * module; `Deck` satisfies these structurally, deck/served-deck.test-d.ts checks it).
 */
import type { DerivedFrom } from '../../core/event-kinds.js';
import type { InterruptResult } from '../../core/interrupt-result.js';
import type { RunStatus } from '../../core/status.js';
import type { ThreadCheckpoint } from '../../runtime/workflow-engine.js';

export type { ThreadCheckpoint };

/** Whose runs a call reaches (served-deck.ts's `Scoped`, repeated: that file imports this one). */
interface Scoped {
  namespace?: string;
}

/** A replay's changes: another model, other instructions, other model settings. */
export interface ServedVariant {
  model?: string;
  instructions?: string;
  modelSettings?: Record<string, unknown>;
}

export interface ServedReplayOptions<C = unknown> extends Scoped {
  variant?: ServedVariant;
  context?: C;
}

export interface ServedReplay {
  runId: string;
  sessionId: string | null;
  status: RunStatus;
  output: unknown;
  derivedFrom: DerivedFrom;
  history: string;
  interrupt?: InterruptResult;
}

export interface ServedForkOptions<C = unknown> extends Scoped {
  checkpointId?: string;
  state?: Record<string, unknown>;
  threadId?: string;
  context?: C;
}

export interface ServedFork {
  threadId: string;
  runId: string;
  status: RunStatus;
  state?: Record<string, unknown>;
  interrupt?: InterruptResult;
  derivedFrom: DerivedFrom;
}

/** The three methods, as `ServedDeck` has them. */
export interface ReplayingDeck<C = unknown> {
  replay(runId: string, options: ServedReplayOptions<C>): Promise<ServedReplay>;
  checkpoints(name: string, threadId: string, options?: Scoped): Promise<ThreadCheckpoint[]>;
  fork(name: string, threadId: string, options: ServedForkOptions<C>): Promise<ServedFork>;
}
