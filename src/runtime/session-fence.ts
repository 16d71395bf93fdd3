/**
 * A session that stops accepting writes once its turn is over. A cancelled engine may
 * still be finishing a tool batch and then write history; by then the session may belong
 * to the next turn, so late writes are dropped instead of interleaving two turns.
 *
 * Tested in src/deck/turn-endings.test.ts (the late history writes of a cancelled turn).
 */
import {
  type ConversationSession,
  hasSharedHistory,
  type SharedHistorySession,
} from '../core/sessions.js';

export function fencedSession(session: ConversationSession): {
  session: ConversationSession;
  close(): void;
} {
  let open = true;
  const fenced: ConversationSession = {
    getSessionId: () => session.getSessionId(),
    getItems: (limit) => session.getItems(limit),
    addItems: async (items) => (open ? session.addItems(items) : undefined),
    popItem: async () => (open ? session.popItem() : undefined),
    clearSession: async () => (open ? session.clearSession() : undefined),
  };
  // Reads are never fenced: the shared history passes through when the session has one.
  if (hasSharedHistory(session)) {
    (fenced as SharedHistorySession).getSharedItems = () => session.getSharedItems();
  }
  return {
    session: fenced,
    close: () => {
      open = false;
    },
  };
}
