/**
 * The log of a background task that fails on every tick while a backend is down (the stale
 * sweep, the resume watch, the control watch). Left alone each writes a line per tick for as
 * long as the outage lasts; here the first failure is logged, repeats are counted, and the
 * first success after them says how many there were. A failure of another kind (not a backend
 * outage) is always logged: it is news.
 */
import { errorMessage, isBackendOutage } from '../core/errors.js';
import { log } from '../core/log.js';

export class RepeatedFailures {
  readonly #what: string;
  readonly #log: (message: string) => void;
  #failing = 0;

  constructor(what: string, write: (message: string) => void = (line) => log.error(line)) {
    this.#what = what;
    this.#log = write;
  }

  /** The task failed on this tick. */
  failed(error: unknown): void {
    const outage = isBackendOutage(error);
    if (!outage || this.#failing === 0) {
      const more = outage ? '; retrying quietly until it works again' : '';
      this.#log(`[agentdeck] ${this.#what} failed: ${errorMessage(error)}${more}`);
    }
    if (outage) this.#failing += 1;
  }

  /** The task worked on this tick. */
  succeeded(): void {
    if (this.#failing === 0) return;
    this.#log(`[agentdeck] ${this.#what} works again, after ${this.#failing} failed attempt(s)`);
    this.#failing = 0;
  }
}
