/**
 * Our ConversationSession as the engine's Session. Items are the engine's input items; we
 * store them as opaque JSON.
 */
import type { AgentInputItem, Session } from '@openai/agents-core';
import type { ConversationSession, SessionItem } from '../../core/sessions.js';

export function toEngineSession(session: ConversationSession): Session {
  return {
    getSessionId: () => session.getSessionId(),
    getItems: async (limit?: number) =>
      (await session.getItems(limit)) as unknown as AgentInputItem[],
    addItems: (items: AgentInputItem[]) => session.addItems(items as unknown as SessionItem[]),
    popItem: async () => (await session.popItem()) as AgentInputItem | undefined,
    clearSession: () => session.clearSession(),
  };
}
