/**
 * The deck's side of its storage metrics: which backend each of its stores is (the label
 * `backend` of `agentdeck_store_operation_*`), and its sessions put behind the timing proxy
 * one by one as the runs ask for them. A store passed in by the user is named by its class,
 * `custom` when it is none of ours; a `sessionFactory` of the user's is left unmetered, since
 * `deck.sessionFor()` hands the user's own session objects back unchanged.
 */
import type { ConversationSession, SessionBackend } from '../core/sessions.js';
import type { EventStore } from '../core/store.js';
import type { DeckMetrics } from '../observers/metrics/deck-metrics.js';
import { MemoryEventStore } from '../stores/memory/events.js';
import { PostgresEventStore } from '../stores/postgres/events.js';
import { RedisSessionBackend } from '../stores/redis/sessions.js';
import { SqliteEventStore } from '../stores/sqlite/events.js';
import { SqliteSessionBackend } from '../stores/sqlite/sessions.js';

/** `memory`, `sqlite`, `postgres`, or `custom` for an event store of the user's own. */
export function eventStoreBackend(store: EventStore): string {
  if (store instanceof MemoryEventStore) return 'memory';
  if (store instanceof SqliteEventStore) return 'sqlite';
  if (store instanceof PostgresEventStore) return 'postgres';
  return 'custom';
}

/** `sqlite` (in-process) or `redis`. */
export function sessionBackendName(backend: SessionBackend): string {
  if (backend instanceof RedisSessionBackend) return 'redis';
  if (backend instanceof SqliteSessionBackend) return 'sqlite';
  return 'custom';
}

/** A `sessionFor` whose sessions time each of their operations. */
export function meteredSessions(
  metrics: DeckMetrics,
  backend: SessionBackend,
): (sessionId: string) => ConversationSession {
  const name = sessionBackendName(backend);
  return (sessionId) => metrics.meter(backend.sessionFor(sessionId), 'sessions', name);
}
