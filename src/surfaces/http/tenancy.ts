/**
 * Tenants on every surface (docs/tenants.md), in one place: the app's deck and grants are
 * wrapped once (`scopeByTenant`, in `createApp`), and each call made while a route handles a
 * request acts as that request's tenant (`identityOf(request).tenant`, set around the handler
 * by `mount()` with {@link withRequestTenant}). A run it starts is recorded in its tenant (the
 * run's `namespace`); a run, thread, session or event stream of another tenant answers as an
 * unknown one does (404, an empty list, an empty history); the inbox, `GET /runs` and every
 * protocol's listing show its own runs alone; a session or thread id another tenant uses is
 * a 409. Schedules are the service's own (their fires run untenanted): a tenant sees none.
 * The HTTP routes, the AI SDK, OpenAI, MCP and A2A surfaces all reach runs through these two
 * objects, so none of them scopes by itself, and a new route is scoped from its first line.
 * A request without a tenant (no authentication, or a key mapped to none) sees every run.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { NotFoundError } from '../../core/errors.js';
import { scopedLog, sessionIsElsewhere } from '../../runtime/tenant-scope.js';
import { identityOf } from './identity.js';
import type { DeckGrants, EventLog, ServedDeck } from './served-deck.js';

const current = new AsyncLocalStorage<string | null>();

/** Run `handle` (a route's handler, and all it calls) as `request`'s tenant. */
export function withRequestTenant<T>(request: Request, handle: () => T): T {
  return current.run(identityOf(request).tenant, handle);
}

/** The tenant of the request being handled; `undefined`: none (every run). */
export function requestTenant(): string | undefined {
  return current.getStore() ?? undefined;
}

/** `deck` and `grants` acting, at each call, as the tenant of the request being handled. */
export function scopeByTenant<C>(
  deck: ServedDeck<C>,
  grants: DeckGrants,
): { deck: ServedDeck<C>; grants: DeckGrants } {
  const as = <O extends object>(options: O): O & { namespace?: string } => {
    const namespace = requestTenant();
    return namespace === undefined ? options : { ...options, namespace };
  };
  // Whether a session or thread id is another tenant's: then it reads as an unknown one.
  const elsewhere = async (sessionId: string): Promise<boolean> => {
    const tenant = requestTenant();
    const log = grants.eventLog();
    return tenant !== undefined && log !== null && sessionIsElsewhere(log, sessionId, tenant);
  };
  const scopedDeck: ServedDeck<C> = {
    get name() {
      return deck.name;
    },
    get state() {
      return deck.state;
    },
    get agents() {
      return deck.agents;
    },
    get workflows() {
      return deck.workflows;
    },
    get skills() {
      return deck.skills;
    },
    stream: (name, input, options) => deck.stream(name, input, as(options)),
    pending: (options = {}) => deck.pending(as(options)),
    answer: (runId, value, options) => deck.answer(runId, value, as(options)),
    status: (runId, options = {}) => deck.status(runId, as(options)),
    pause: (runId, options) => deck.pause(runId, as(options)),
    cancel: (runId, options) => deck.cancel(runId, as(options)),
    enqueue: (name, input, options) => deck.enqueue(name, input, as(options)),
    resume: (runId, options) => deck.resume(runId, as(options)),
    replay: (runId, options) => deck.replay(runId, as(options)),
    checkpoints: (name, threadId, options = {}) => deck.checkpoints(name, threadId, as(options)),
    fork: (name, threadId, options) => deck.fork(name, threadId, as(options)),
    async listSchedules() {
      return requestTenant() === undefined ? deck.listSchedules() : [];
    },
    scheduleHandle(name) {
      if (requestTenant() === undefined) return deck.scheduleHandle(name);
      throw new NotFoundError(`No schedule named '${name}'. Available: [].`);
    },
    tick: (now) => deck.tick(now),
    open: (options) => deck.open(options),
    app: (options) => deck.app(options),
    close: () => deck.close(),
  };
  const scopedGrants: DeckGrants = {
    ...grants,
    eventLog(): EventLog | null {
      const log = grants.eventLog();
      return log && (scopedLog(log, requestTenant()) as EventLog);
    },
    streamForResult: (name, input, options) => grants.streamForResult(name, input, as(options)),
    stopRun: grants.stopRun,
  };
  const { threadState, sessionItems, popTurn, playTurn } = grants;
  if (playTurn) {
    scopedGrants.playTurn = (name, input, options, live) =>
      playTurn(name, input, as(options), live);
  }
  // Each answers as for an unknown id when the id is another tenant's, having read nothing.
  const open = () => grants.eventLog() !== null;
  if (threadState) {
    scopedGrants.threadState = (workflow, threadId) =>
      open()
        ? elsewhere(threadId).then((other) => (other ? null : threadState(workflow, threadId)))
        : null;
  }
  if (sessionItems) {
    scopedGrants.sessionItems = (sessionId, limit) =>
      open()
        ? elsewhere(sessionId).then((other) =>
            other ? [] : (sessionItems(sessionId, limit) ?? []),
          )
        : null;
  }
  if (popTurn) {
    scopedGrants.popTurn = (sessionId) =>
      open() ? elsewhere(sessionId).then((other) => (other ? 0 : (popTurn(sessionId) ?? 0))) : null;
  }
  return { deck: scopedDeck, grants: scopedGrants };
}
