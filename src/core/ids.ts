/**
 * The one rule for the ids a caller chooses (run ids, session ids, thread ids), on every
 * surface and backend: at most {@link MAX_ID_BYTES} bytes of UTF-8, no NUL character, no
 * unpaired surrogate. Postgres cannot store a NUL in a text column, and refuses an index entry
 * over about 2.7 KB (a session or thread id is indexed, and part of its claim's key); SQLite
 * takes both. Checking the id where it comes in makes every backend answer alike: the HTTP
 * surface 422 naming the field, the deck an `InvalidInputError`, never a driver's error.
 */
import { InvalidInputError } from './errors.js';

/** The longest id accepted, in bytes of UTF-8 (1,024 ASCII characters). */
export const MAX_ID_BYTES = 1024;

/** In `u` mode a surrogate pair is one code point: only a lone half is in `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with `value` as an id, or `null` when it is a fine one. */
export function idProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'holds a NUL character; send an id without one';
  if (LONE_SURROGATE.test(value)) return 'holds an unpaired surrogate (not valid Unicode)';
  // A cheap bound first: a string of n UTF-16 units is at most 3n bytes of UTF-8.
  if (value.length * 3 > MAX_ID_BYTES) {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MAX_ID_BYTES) {
      return `is ${bytes} bytes long; an id is at most ${MAX_ID_BYTES} bytes (UTF-8)`;
    }
  }
  return null;
}

/** `value`, when it is a fine id; else an InvalidInputError naming `name`. */
export function checkId(name: string, value: string): string {
  const problem = idProblem(value);
  if (problem !== null) throw new InvalidInputError(`${name} ${problem}`);
  return value;
}
