/**
 * Wrong API keys, limited per client address, so a key cannot be guessed at the rate the
 * server answers. An address that sent {@link MAX_FAILURES} wrong keys (a missing key is no
 * guess, and is not counted) within
 * {@link WINDOW_MS} is answered 429 with `Retry-After` until that window ends, before any key
 * is compared: a guesser learns nothing more until then, a right key included. A right key
 * costs one map lookup and nothing else (no delay), and clears its address's count.
 *
 * The address is the connection's (`@hono/node-server` gives it): behind a proxy every
 * client shares the proxy's, so a guesser there locks out the others for a minute at most.
 * An app answering `app.request()` (no connection) counts every request as one client.
 */
import type { Context } from 'hono';
import { detailResponse } from './errors.js';

/** Wrong keys an address may send within {@link WINDOW_MS}. */
export const MAX_FAILURES = 10;
/** The window failures are counted in, and how long an address that used them up waits. */
export const WINDOW_MS = 60_000;
/** Addresses remembered at most; past it, windows that ended are dropped, then the oldest. */
const MAX_ADDRESSES = 10_000;

interface Window {
  /** When the window began (the first failure in it). */
  since: number;
  failures: number;
}

export class KeyGuesses {
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The 429 for an address that used up its failures, or `null`. */
  refusal(address: string): Response | null {
    const window = this.#windows.get(address);
    if (!window || window.failures < MAX_FAILURES) return null;
    const left = window.since + WINDOW_MS - this.#now();
    if (left <= 0) {
      this.#windows.delete(address);
      return null;
    }
    const seconds = Math.ceil(left / 1000);
    return detailResponse(
      429,
      `too many wrong API keys from this address: try again in ${seconds} s`,
      { 'retry-after': String(seconds) },
    );
  }

  failed(address: string): void {
    const now = this.#now();
    const window = this.#windows.get(address);
    if (window && now - window.since < WINDOW_MS) {
      window.failures += 1;
      return;
    }
    this.#windows.delete(address);
    if (this.#windows.size >= MAX_ADDRESSES) this.#forgetSome(now);
    this.#windows.set(address, { since: now, failures: 1 });
  }

  succeeded(address: string): void {
    if (this.#windows.size > 0) this.#windows.delete(address);
  }

  #forgetSome(now: number): void {
    for (const [address, window] of this.#windows) {
      if (now - window.since >= WINDOW_MS) this.#windows.delete(address);
    }
    // Oldest first (a Map keeps insertion order): a flood of addresses forgets its own.
    for (const address of this.#windows.keys()) {
      if (this.#windows.size < MAX_ADDRESSES) break;
      this.#windows.delete(address);
    }
  }
}

/**
 * The client's address, from the connection `@hono/node-server` hands the app (`c.env`);
 * `null` when the app is not served by it (`app.request()`, another runtime).
 */
export function clientAddress(c: Context): string | null {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const address = env?.incoming?.socket?.remoteAddress;
  if (typeof address !== 'string' || address === '') return null;
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}
