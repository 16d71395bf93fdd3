/**
 * The turns this process is playing. Closing the deck cancels each one and waits briefly
 * for it to record its terminal event; a turn whose consumer is not reading (so its code
 * cannot run) is closed from here with `run.cancelled`, and its claim is freed.
 *
 * Tested in agent-turn.test.ts (closing cancels a turn in flight and frees its claim), end to end
 * in src/deck/turn-endings.test.ts.
 */
import { errorMessage } from '../core/errors.js';
import { log } from '../core/log.js';
import type { RunRecorder } from './recorder.js';

export interface LiveTurn {
  readonly controller: AbortController;
  readonly recorder: RunRecorder;
  /** Resolves when the turn's own code has finished (terminal event recorded, claim freed). */
  readonly finished: Promise<void>;
  /** Ask the turn to stop, recording `run.cancelled` with this reason. */
  cancel(reason: string): void;
  /** Free the turn's claim; idempotent. */
  release(): Promise<void>;
}

export class LiveTurns {
  readonly #turns = new Set<LiveTurn>();

  /** How many turns are live. */
  get size(): number {
    return this.#turns.size;
  }

  /** The ids of the runs that are live. */
  runIds(): string[] {
    return [...this.#turns].map((turn) => turn.recorder.identity.runId);
  }

  add(turn: LiveTurn): void {
    this.#turns.add(turn);
  }

  delete(turn: LiveTurn): void {
    this.#turns.delete(turn);
  }

  /** Ask the live run `runId` to stop (it records `run.cancelled` itself); whether it was live here. */
  cancelRun(runId: string, reason: string): boolean {
    for (const turn of this.#turns) {
      if (turn.recorder.identity.runId === runId) {
        turn.cancel(reason);
        return true;
      }
    }
    return false;
  }

  /**
   * Stop the live run `runId` without recording anything more: another process plays it now
   * (a background run whose queue hold lapsed while this process stalled, queue-worker.ts).
   * Whether it was live here.
   */
  abandonRun(runId: string, reason: string): boolean {
    for (const turn of this.#turns) {
      if (turn.recorder.identity.runId === runId) {
        turn.recorder.endedElsewhere(reason);
        turn.controller.abort(new Error(reason));
        return true;
      }
    }
    return false;
  }

  async cancelAll(reason: string, graceMs: number): Promise<void> {
    await Promise.all([...this.#turns].map((turn) => this.#cancel(turn, reason, graceMs)));
  }

  async #cancel(turn: LiveTurn, reason: string, graceMs: number): Promise<void> {
    turn.cancel(reason);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      turn.finished,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (!turn.recorder.ended) {
      try {
        await turn.recorder.record({ kind: 'run.cancelled', payload: { reason } });
      } catch (error) {
        log.error(
          `[agentdeck] could not close run '${turn.recorder.identity.runId}': ${errorMessage(error)}`,
        );
      }
    }
    await turn.release();
    this.#turns.delete(turn);
  }
}
