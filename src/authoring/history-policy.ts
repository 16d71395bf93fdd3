/**
 * How much of a session's history an agent's turn sends to the model. The session keeps
 * everything; the policy only chooses, each turn, which stored items go before the turn's
 * new message (the message and the items the turn itself adds are always sent). Full history
 * is the default, as in the OpenAI Agents SDK. A bound keeps a long conversation's requests
 * (and their price) from growing with it; the compaction hook lets the application replace
 * old items with a summary of its own.
 */
import { ConfigError } from '../core/errors.js';
import type { SessionItem } from '../core/sessions.js';

/**
 * The history an agent's turn sends to the model, on the agent (`new Agent({ history })`) or
 * as the deck's default for agents without one (`new Deck({ history })`).
 *
 * @example
 * ```ts
 * new Agent({ name: 'Booker', history: { lastItems: 40 } });
 * new Agent({ name: 'Notes', history: { maxTokens: 8_000, compact: summarizeOldest } });
 * ```
 */
export interface HistoryPolicy {
  /** Send at most the latest this many stored items (a whole number above 0). @default no bound */
  lastItems?: number;
  /**
   * Send the latest stored items whose estimated tokens fit this budget (a whole number above
   * 0). The estimate is the item's JSON length divided by 4, rounded up: cheap, about right for
   * English text, and high for short fields. @default no bound
   */
  maxTokens?: number;
  /**
   * Rewrite the items chosen (after `lastItems` and `maxTokens`) before they are sent, for
   * example to replace the oldest with a summary. It gets copies of the items; what it
   * returns is sent, and the session is not changed. @default none
   */
  compact?: (items: SessionItem[]) => SessionItem[] | Promise<SessionItem[]>;
}

const KEYS = new Set(['lastItems', 'maxTokens', 'compact']);

/** `value` checked as a history policy (`undefined` stays so), or a ConfigError naming `where`. */
export function checkHistoryPolicy(value: unknown, where: string): HistoryPolicy | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      `${where}: \`history\` must be an object such as { lastItems: 40 } or { maxTokens: 8000 }; got ${describe(value)}`,
    );
  }
  const policy = value as Record<string, unknown>;
  for (const key of Object.keys(policy)) {
    if (!KEYS.has(key)) {
      throw new ConfigError(
        `${where}: \`history.${key}\` is not a history option; use lastItems, maxTokens or compact`,
      );
    }
  }
  for (const key of ['lastItems', 'maxTokens'] as const) {
    const bound = policy[key];
    if (bound !== undefined && !(Number.isSafeInteger(bound) && (bound as number) > 0)) {
      throw new ConfigError(
        `${where}: \`history.${key}\` must be a whole number above 0; got ${describe(bound)}`,
      );
    }
  }
  if (policy.compact !== undefined && typeof policy.compact !== 'function') {
    throw new ConfigError(
      `${where}: \`history.compact\` must be a function (items) => items; got ${describe(policy.compact)}`,
    );
  }
  return Object.freeze({ ...policy }) as HistoryPolicy;
}

const tokenEstimates = new WeakMap<SessionItem, number>();

/** The estimated tokens of one item (its JSON length / 4, rounded up), computed once per item. */
export function estimateTokens(item: SessionItem): number {
  let tokens = tokenEstimates.get(item);
  if (tokens === undefined) {
    tokens = Math.ceil(JSON.stringify(item).length / 4);
    tokenEstimates.set(item, tokens);
  }
  return tokens;
}

/**
 * The stored items a turn sends, oldest first. It never starts with a tool call's output
 * whose call was left out (a model API refuses an output without its call). With no policy,
 * `items` itself.
 */
export async function selectHistory(
  items: readonly SessionItem[],
  policy: HistoryPolicy | undefined,
): Promise<readonly SessionItem[]> {
  if (policy === undefined) return items;
  let from = 0;
  if (policy.lastItems !== undefined) from = Math.max(0, items.length - policy.lastItems);
  if (policy.maxTokens !== undefined) {
    // From the newest back: only the items inside the window are estimated, whatever the length.
    let budget = policy.maxTokens;
    let start = items.length;
    while (start > from) {
      budget -= estimateTokens(items[start - 1] as SessionItem);
      if (budget < 0) break;
      start -= 1;
    }
    from = start;
  }
  while (from < items.length && isToolOutput(items[from] as SessionItem)) from += 1;
  const chosen = from === 0 ? items : items.slice(from);
  if (!policy.compact) return chosen;
  // Its own copies: the items may be shared by the session's other readers (frozen).
  const compacted = await policy.compact(structuredClone([...chosen]));
  if (!Array.isArray(compacted)) {
    throw new ConfigError(
      `history.compact must return a list of items; it returned ${describe(compacted)}`,
    );
  }
  return compacted;
}

/** A tool call's output item (`function_call_result`, `computer_call_result`, `*_output`...). */
function isToolOutput(item: SessionItem): boolean {
  const type = item.type;
  return typeof type === 'string' && (type.endsWith('_result') || type.endsWith('_output'));
}

function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
