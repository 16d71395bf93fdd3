/**
 * The conversation as it stood before a recorded agent turn (#41), for its replay: the
 * session a replay plays on is seeded with it, so the model is sent the same history. Two
 * sources, the most faithful first:
 * - the turn's first recorded model request (`model.call.started`, with `detail: 'full'`):
 *   the input items the model saw (after the history policy) up to the turn's message, as
 *   the session keeps them (the instructions and reasoning items left out; a request holding
 *   an item of another shape falls back to the log);
 * - else the session's earlier agent runs in the event log, oldest first: each run's input as
 *   a user message, then its replies (`message.completed`) and its tool calls and results in
 *   the order they were recorded. Reasoning items, provider item ids and anything the engine
 *   kept only in the session are not in the log, so they are not sent again.
 * Tested in src/deck/replays.test.ts.
 */
import type { AgentInputItem } from '@openai/agents-core';
import type { ContentBlock } from '../core/blocks.js';
import type { ModelCallStarted } from '../core/event-kinds.js';
import type { Event } from '../core/events.js';
import type { EventStore, RunSummary } from '../core/store.js';

/** Where a replay's history came from, recorded nowhere but returned to the caller. */
export type HistorySource = 'model-request' | 'event-log' | 'none';

export interface TurnHistory {
  items: AgentInputItem[];
  source: HistorySource;
}

/** How many earlier runs one page of the session's listing holds. */
const PAGE = 100;

/** The history the turn `source` (its events `events`) was played after. */
export async function historyBefore(
  store: EventStore,
  source: RunSummary,
  events: readonly Event[],
): Promise<TurnHistory> {
  const requested = requestedHistory(events);
  if (requested) return { items: requested, source: 'model-request' };
  if (source.sessionId === null) return { items: [], source: 'none' };
  const earlier = await earlierRuns(store, source);
  const items: AgentInputItem[] = [];
  for (const run of earlier) items.push(...itemsOf(await store.read(run.runId)));
  return { items, source: items.length > 0 ? 'event-log' : 'none' };
}

/**
 * The items of the turn's first model request before its own message, when that request was
 * recorded with its bodies (every value of a run's first request is in its own `values`) and
 * each item is one this module can give the session again; `null` sends the caller to the log.
 */
function requestedHistory(events: readonly Event[]): AgentInputItem[] | null {
  const first = events.find((e) => e.kind === 'model.call.started');
  if (first?.kind !== 'model.call.started') return null;
  const request: ModelCallStarted = first.payload;
  if (request.detail !== 'full') return null;
  const sent: unknown[] = [];
  for (const digest of request.messages) {
    if (!(digest in request.values)) return null;
    sent.push(request.values[digest]);
  }
  // The turn's message is the last user item; everything before it is history.
  const lastUser = sent.findLastIndex((item) => (item as { role?: unknown }).role === 'user');
  if (lastUser < 0) return null;
  const names = new Map<string, string>();
  const items: AgentInputItem[] = [];
  for (const item of sent.slice(0, lastUser)) {
    const known = sessionItemOf(item as Record<string, unknown>, names);
    if (known === null) return null;
    if (known !== 'skip') items.push(known);
  }
  return items;
}

/**
 * A sent input item as the session keeps it: messages, and function calls and their results
 * in either the engine's form (`callId`) or the Responses API's (`call_id`). System and
 * developer messages are the instructions (a variant replaces them) and reasoning items are
 * the provider's own: both `skip`. Anything else: `null`.
 */
function sessionItemOf(
  item: Record<string, unknown>,
  names: Map<string, string>,
): AgentInputItem | 'skip' | null {
  const { type, role } = item;
  if (type === 'reasoning' || role === 'system' || role === 'developer') return 'skip';
  if ((type === undefined || type === 'message') && role === 'user') {
    return { type: 'message', role: 'user', content: item.content } as AgentInputItem;
  }
  if ((type === undefined || type === 'message') && role === 'assistant') {
    const { content } = item;
    const parts = typeof content === 'string' ? [{ type: 'output_text', text: content }] : content;
    if (!Array.isArray(parts)) return null;
    return {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: parts,
    } as AgentInputItem;
  }
  const callId = item.callId ?? item.call_id;
  if (typeof callId !== 'string') return null;
  if (type === 'function_call' && typeof item.name === 'string') {
    names.set(callId, item.name);
    const args =
      typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
    return { type: 'function_call', callId, name: item.name, arguments: args, status: 'completed' };
  }
  if (type === 'function_call_result' || type === 'function_call_output') {
    const output = item.output as { type?: unknown; text?: unknown } | unknown;
    const text =
      typeof output === 'object' &&
      output !== null &&
      (output as { type?: unknown }).type === 'text'
        ? String((output as { text?: unknown }).text ?? '')
        : outputText(output);
    const name = typeof item.name === 'string' ? item.name : (names.get(callId) ?? '');
    return {
      type: 'function_call_result',
      callId,
      name,
      status: 'completed',
      output: { type: 'text', text },
    };
  }
  return null;
}

/** The agent runs of the source's session recorded before it, oldest first. */
async function earlierRuns(store: EventStore, source: RunSummary): Promise<RunSummary[]> {
  const sessionId = source.sessionId as string;
  const runs: RunSummary[] = [];
  let after = { startedAt: source.startedAt, runId: source.runId };
  for (;;) {
    const page = await store.listRuns({ sessionId, after, limit: PAGE });
    runs.push(...page);
    const last = page.at(-1);
    if (page.length < PAGE || !last) break;
    after = { startedAt: last.startedAt, runId: last.runId };
  }
  return runs.reverse();
}

/** One earlier run's part of the conversation, from its events; nothing for a workflow run. */
export function itemsOf(events: readonly Event[]): AgentInputItem[] {
  const items: AgentInputItem[] = [];
  for (const event of events) {
    switch (event.kind) {
      case 'run.started': {
        if (event.payload.invocableType !== 'agent') return [];
        const message = userMessage(event.payload.input);
        if (message) items.push(message);
        break;
      }
      case 'message.completed': {
        const text = textOf(event.payload.content);
        if (text !== '') {
          items.push({
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text }],
          });
        }
        break;
      }
      case 'tool.call.started':
        items.push({
          type: 'function_call',
          callId: event.payload.callId,
          name: event.payload.name,
          arguments: JSON.stringify(event.payload.arguments ?? {}),
          status: 'completed',
        });
        break;
      case 'tool.call.completed':
        items.push({
          type: 'function_call_result',
          callId: event.payload.callId,
          name: event.payload.name,
          status: 'completed',
          output: { type: 'text', text: outputText(event.payload.error ?? event.payload.output) },
        });
        break;
    }
  }
  return items;
}

/** A run's input as the user message the engine wrote (text and images; the rest is never sent). */
function userMessage(blocks: readonly ContentBlock[]): AgentInputItem | null {
  const content: Array<
    { type: 'input_text'; text: string } | { type: 'input_image'; image: string }
  > = [];
  for (const block of blocks) {
    if (block.type === 'text') content.push({ type: 'input_text', text: block.text });
    if (block.type === 'image') {
      content.push({
        type: 'input_image',
        image: `data:${block.mediaType};base64,${block.dataB64}`,
      });
    }
  }
  const [only] = content;
  if (content.length === 1 && only?.type === 'input_text') {
    return { type: 'message', role: 'user', content: only.text };
  }
  return content.length > 0 ? { type: 'message', role: 'user', content } : null;
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

function outputText(output: unknown): string {
  if (output === undefined || output === null) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}
