/**
 * A session's last turn, as the runs that stop mid-turn need it: an agent turn writes its
 * user message to the session when it begins and its reply when it completes (the engine's
 * `turnInput`), so a turn stopped between the two leaves its message alone at the session's
 * end. `rollback` (deck/multitask.ts) and a background turn played again after its worker
 * stopped (queued-runs.ts) take that message out first, and only that one.
 * Tested in src/deck/multitask-sync.test.ts and src/runtime/queued-runs.test.ts.
 */
import type { ConversationSession } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';

/** Whether the session's last item is the user message run `runId` began with (and no reply). */
export async function endsWithMessageOf(
  store: EventStore,
  session: ConversationSession,
  runId: string,
): Promise<boolean> {
  const [last] = await session.getItems(1);
  // Its first events: `run.started`, after `run.queued` for a background run.
  const begun = (await store.read(runId, { limit: 4 })).find((e) => e.kind === 'run.started');
  if (last?.role !== 'user' || begun?.kind !== 'run.started') return false;
  const sent = begun.payload.input
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('');
  return textOf(last) === sent;
}

/** The text of a session item: its string content, or its text parts joined. */
function textOf(item: { content?: unknown }): string {
  const { content } = item;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : ''))
    .join('');
}

/** Pop items back to, and with, the last user message (an engine item with `role: 'user'`). */
export async function popTurn(session: ConversationSession): Promise<number> {
  let popped = 0;
  for (let item = await session.popItem(); item !== undefined; item = await session.popItem()) {
    popped += 1;
    if (item.role === 'user') break;
  }
  return popped;
}
