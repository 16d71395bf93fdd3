/**
 * The conversation-memory port: the history an agent turn reads and extends. It has the
 * shape of the agent engine's `Session` (items are the engine's JSON input items, opaque
 * here), so a user may pass any engine session through `sessionFactory`.
 */

/** One history item (a message, a tool call, a tool result...), as JSON. */
export type SessionItem = Record<string, unknown>;

export interface ConversationSession {
  getSessionId(): Promise<string>;
  /** The history, oldest first; with `limit`, only the latest `limit` items. */
  getItems(limit?: number): Promise<SessionItem[]>;
  addItems(items: SessionItem[]): Promise<void>;
  /** Remove and return the latest item. */
  popItem(): Promise<SessionItem | undefined>;
  clearSession(): Promise<void>;
}

/** Returns the session for a session id; called once per turn. */
export type SessionFactory = (sessionId: string) => ConversationSession;

/** A session backend the Deck built from settings; closed with the deck. */
export interface SessionBackend {
  sessionFor(sessionId: string): ConversationSession;
  close(): Promise<void>;
}

/**
 * A session that can hand a turn its whole history without reading and parsing all of it
 * each time (the SQLite backend keeps it parsed and reads only what was written since).
 * The items are frozen and shared with every other reader: copy one to change it.
 */
export interface SharedHistorySession extends ConversationSession {
  /** The whole history, oldest first, as `getItems()` reads it, but shared and frozen. */
  getSharedItems(): Promise<readonly SessionItem[]>;
}

export function hasSharedHistory(session: ConversationSession): session is SharedHistorySession {
  return typeof (session as Partial<SharedHistorySession>).getSharedItems === 'function';
}
