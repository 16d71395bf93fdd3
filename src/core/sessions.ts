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
