/**
 * What `agentdeck serve` (`service-serve`) says as it starts, composed apart from the process
 * so that each line is tested without one: what it serves and where, the run inspector, where
 * it keeps events, checkpoints and conversations, whether every route is open to the network,
 * what it keeps of old runs, and what agent turns still lack. The places are read from the
 * same settings, by the same functions, as the deck that opens them.
 */
import { type CheckpointLocation, parseCheckpointUrl } from '../../stores/checkpoints-url.js';
import { type EventStoreLocation, parseEventStoreUrl } from '../../stores/events-url.js';
import {
  parseSessionUrl,
  type SessionLocation,
  sessionSettingsFromEnv,
} from '../../stores/sessions-url.js';
import { redactUrl } from '../../stores/shared/url.js';
import { isLoopback } from '../http/hosts.js';
import type { UiMode } from '../ui/ui-app.js';

/** Where a served deck keeps what it keeps. */
export interface StoragePlaces {
  events: EventStoreLocation;
  checkpoints: CheckpointLocation;
  sessions: SessionLocation;
}

/** What the start-up lines tell. */
export interface StartupFacts {
  /** The deck's name and catalog. */
  deck: {
    name: string;
    agents: Iterable<string>;
    workflows: Iterable<string>;
    skills: Iterable<string>;
  };
  /** The URL the server answers on. */
  url: string;
  /** The address it is bound to, as given (`0.0.0.0`, `127.0.0.1`, a host name). */
  host: string;
  /** How many API keys guard the routes. */
  apiKeys: number;
  /** `SERVICE_OPEN_CONTROL`: with no keys, the control routes beyond 1.2.1 open to the network. */
  openControl?: boolean;
  /** `SERVICE_ALLOWED_HOSTS`; `null`: unset. */
  allowedHosts?: readonly string[] | null;
  ui: UiMode;
  storage: StoragePlaces;
  /** `SERVICE_RETENTION_DAYS`; `null`: every run is kept. */
  retentionDays: number | null;
  /** Why agent turns cannot run yet (no model configured), or `null`. */
  modelMissing: string | null;
}

/**
 * The lines, in the order they are printed.
 *
 * @example
 * ```ts
 * for (const line of startupLines(facts)) console.log(line);
 * ```
 */
export function startupLines(facts: StartupFacts): string[] {
  const { deck, url, ui, retentionDays } = facts;
  const lines = [
    `agentdeck: serving '${deck.name}' (${list('agent', deck.agents)}, ${list('workflow', deck.workflows)}, ${list('skill', deck.skills)}) on ${url}`,
    storageLine(facts.storage),
    ui === 'off'
      ? 'agentdeck: the run inspector is off (SERVICE_UI=off)'
      : `agentdeck: run inspector at ${url}/ui${ui === 'read-only' ? ' (read-only)' : ''}`,
  ];
  if (facts.apiKeys === 0 && !isLoopback(facts.host)) lines.push(openLine(facts));
  lines.push(
    retentionDays === null
      ? 'agentdeck: every run is kept (set SERVICE_RETENTION_DAYS to remove the ones that ended long ago)'
      : `agentdeck: runs that ended more than ${retentionDays} day${retentionDays === 1 ? '' : 's'} ago are removed (SERVICE_RETENTION_DAYS)`,
  );
  if (facts.modelMissing !== null) {
    lines.push(`agentdeck: workflows are ready; ${facts.modelMissing}.`);
  }
  return lines;
}

/**
 * Where a deck opened on `env` keeps events, checkpoints and sessions (`SERVICE_EVENTS`,
 * `SERVICE_CHECKPOINT`, `SERVICE_SESSION`), read as the deck reads them.
 */
export function storageFromEnv(env: Record<string, string | undefined> = process.env) {
  const events = parseEventStoreUrl(env.SERVICE_EVENTS);
  return {
    events,
    checkpoints: parseCheckpointUrl(env.SERVICE_CHECKPOINT, env.SERVICE_EVENTS),
    sessions: parseSessionUrl(sessionSettingsFromEnv(env).url, events),
  } satisfies StoragePlaces;
}

/** One line: each place once, with what it keeps. */
function storageLine(storage: StoragePlaces): string {
  const kept = new Map<string, string[]>();
  const keep = (what: string, location: StoragePlaces[keyof StoragePlaces]) => {
    const place = placeOf(location);
    kept.set(place, [...(kept.get(place) ?? []), what]);
  };
  keep('events', storage.events);
  keep('checkpoints', storage.checkpoints);
  keep('sessions', storage.sessions);
  const parts = [...kept].map(([place, what], index) =>
    index === 0 ? `${and(what)} are kept in ${place}` : `${and(what)} in ${place}`,
  );
  // Events shared with other processes, sessions not: a turn another process plays (a
  // background run its worker takes, a request a load balancer sends there) misses the ones
  // before it.
  const shared = storage.events.backend === 'postgres' && storage.sessions.backend === 'memory';
  const warning = shared
    ? ': other processes on these events, their queue workers included, do not see them (set SERVICE_SESSION=redis://...)'
    : '';
  return `agentdeck: ${parts.join('; ')}${warning}`;
}

function placeOf(location: StoragePlaces[keyof StoragePlaces]): string {
  if (location.backend === 'memory') return "this process's memory (lost when it stops)";
  if (location.backend === 'sqlite') return location.path;
  return redactUrl(location.url);
}

function and(words: readonly string[]): string {
  return words.length === 1
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** What a server with no keys, bound beyond loopback, lets other machines do. */
function openLine(facts: StartupFacts): string {
  const open = facts.openControl
    ? `every route is open to anyone who can reach ${facts.host}, the run inspector's answer and cancel buttons included: no API keys are set, and SERVICE_OPEN_CONTROL=true.`
    : `no API keys are set: the 1.2.1 routes (chat, workflows, pause, cancel, resume) and the run history are open to anyone who can reach ${facts.host}; answers, timers, schedules and the run inspector's controls are refused to other machines (SERVICE_OPEN_CONTROL=true opens them too).`;
  const hosts =
    (facts.allowedHosts ?? null) === null
      ? ' Any host name is answered: list the names clients use in SERVICE_ALLOWED_HOSTS, against DNS rebinding.'
      : '';
  return (
    `agentdeck: ${open}${hosts} ` +
    'Set SERVICE_API_KEYS to require a key, or bind to 127.0.0.1 (--host 127.0.0.1) for local use.'
  );
}

function list(what: string, names: Iterable<string>): string {
  const all = [...names];
  if (all.length === 0) return `no ${what}s`;
  return `${all.length} ${what}${all.length === 1 ? '' : 's'}: ${all.join(', ')}`;
}
