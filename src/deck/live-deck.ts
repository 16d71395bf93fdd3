/**
 * One live Deck per process (SPEC.md "Limits"). The registry sits on `globalThis` so two
 * copies of the package loaded in one process still see each other.
 */
import { ConfigError } from '../core/errors.js';

const KEY = Symbol.for('agentdeck.liveDeck');
type Registry = { [KEY]?: { name: string } };

export function registerLiveDeck(deck: { name: string }): void {
  const registry = globalThis as Registry;
  const live = registry[KEY];
  if (live) {
    throw new ConfigError(
      `cannot construct deck '${deck.name}': deck '${live.name}' is still live in this process; ` +
        `close it first (await deck.close()), one Deck per process`,
    );
  }
  registry[KEY] = deck;
}

export function unregisterLiveDeck(deck: { name: string }): void {
  const registry = globalThis as Registry;
  if (registry[KEY] === deck) delete registry[KEY];
}
