/**
 * `serve(deck)`: the lifespan of an HTTP server around a deck. Opens the deck, listens
 * (`HOST`, default 0.0.0.0; `PORT`, default 8000), and on SIGTERM/SIGINT (or `close()`)
 * stops accepting connections, lets in-flight requests end (up to a grace period, after
 * which open streams are cut; streams following a run's events end at once), then closes
 * the deck. A signal drains first (draining.ts, #42): readiness goes 503 at once, requests
 * that would play a run are refused, the runs in flight get `SERVICE_DRAIN_SECONDS` to end,
 * what remains is handed to other processes (`deck.drain`), then the server closes as above.
 * A second signal during the drain closes at once. The caller constructs the deck (`Deck` is a `ServedDeck`); opening, building its
 * app and closing go through that interface, so this file never imports the class.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as listen } from '@hono/node-server';
import { ConfigError, errorMessage } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { drainingAnswer } from './draining.js';
import { isLoopback } from './hosts.js';
import {
  allowedHostsFromEnv,
  drainMsFromEnv,
  requestTimeoutMsFromEnv,
  type ServeOptions,
  serveSettingsFromEnv,
} from './options.js';
import type { ServedDeck } from './served-deck.js';

/** Node's own limit on receiving a request's headers, in ms. */
const NODE_HEADERS_TIMEOUT_MS = 60_000;

/** How long shutdown waits for in-flight requests before cutting the connections left. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer extends AsyncDisposable {
  /** `http://<host>:<port>`, with the port actually bound. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Resolves once the server stopped and the deck closed (after a signal or `close()`). */
  readonly closed: Promise<void>;
  /** Stop accepting, let in-flight requests end, close the deck. Idempotent. */
  close(): Promise<void>;
  /** Drain (what a signal does: draining.ts), then `close()`. Idempotent. */
  drain(): Promise<void>;
}

/**
 * @example
 * const deck = new Deck({ agents: [greeter] });
 * const server = await serve(deck, { port: 8000 });
 * console.log(`listening on ${server.url}`);
 */
export async function serve<C>(
  deck: ServedDeck<C>,
  options: ServeOptions<C> = {},
): Promise<RunningServer> {
  // The environment is read only for what the options leave out (a bad PORT is no matter then).
  const env =
    options.host !== undefined && options.port !== undefined
      ? { host: options.host, port: options.port }
      : serveSettingsFromEnv();
  const host = options.host ?? env.host;
  const requestedPort = options.port ?? env.port;
  const limits = requestLimits(options.requestTimeoutMs ?? requestTimeoutMsFromEnv());
  const drainMs = drainMsFromEnv();
  await deck.open({ wakeTimers: options.wakeTimers ?? true });
  const shutdown = new AbortController();
  let draining = false;
  // Bound to loopback with no names set: only this machine's names (hosts.ts, DNS rebinding).
  const allowedHosts =
    options.app?.allowedHosts ?? allowedHostsFromEnv() ?? (isLoopback(host) ? [] : undefined);
  const app = deck.app({
    ...options.app,
    ...(allowedHosts ? { allowedHosts } : {}),
    shutdown: shutdown.signal,
  });
  let server: Server;
  let port: number;
  try {
    ({ server, port } = await new Promise<{ server: Server; port: number }>((resolve, reject) => {
      const s = listen(
        {
          fetch: (request: Request, ...rest: unknown[]) =>
            (draining && drainingAnswer(request)) ||
            (app.fetch as (request: Request, ...rest: unknown[]) => Response | Promise<Response>)(
              request,
              ...rest,
            ),
          hostname: host,
          port: requestedPort,
          serverOptions: limits,
        },
        (info: AddressInfo) => resolve({ server: s as Server, port: info.port }),
      );
      s.once('error', reject);
    }));
  } catch (error) {
    await deck.close();
    throw error;
  }

  let closing: Promise<void> | null = null;
  let drainingDone: Promise<void> | null = null;
  let finished: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const onSignal = () => void drain();
  const onSecondSignal = () => void close();
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  function close(): Promise<void> {
    closing ??= (async () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSecondSignal);
      process.off('SIGINT', onSecondSignal);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      shutdown.abort();
      // Keep-alive connections go as soon as their last response ended; open streams get a grace period.
      server.closeIdleConnections();
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        await stopped;
      } finally {
        clearInterval(idle);
        clearTimeout(cut);
        try {
          await deck.close();
        } catch (error) {
          log.error(`[agentdeck] closing the deck failed: ${errorMessage(error)}`);
        } finally {
          finished();
        }
      }
    })();
    return closing;
  }
  function drain(): Promise<void> {
    drainingDone ??= (async () => {
      draining = true;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      if (handleSignals) {
        process.once('SIGTERM', onSecondSignal);
        process.once('SIGINT', onSecondSignal);
      }
      try {
        const report = (await deck.drain?.(Date.now() + drainMs)) as DrainSummary | undefined;
        // Said only when there was something to drain: a quiet shutdown prints nothing.
        const counts = report && drainCounts(report);
        if (counts) log.info(`[agentdeck] drained (${drainMs / 1000} s to end): ${counts}`);
      } catch (error) {
        log.error(`[agentdeck] draining failed: ${errorMessage(error)}`);
      }
      await close();
    })();
    return drainingDone;
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${port}`,
    host,
    port,
    closed,
    close,
    drain,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Node's limits on receiving a request. Left alone, a body trickled byte by byte holds its
 * connection for Node's `requestTimeout` (300 s), checked only every 30 s: the whole request
 * gets `requestTimeoutMs` (headers at most Node's 60 s of their own), checked every quarter
 * of it, so a slow sender is cut within 1.25 times the setting.
 */
function requestLimits(requestTimeoutMs: number) {
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0) {
    throw new ConfigError(
      `requestTimeoutMs must be a positive whole number of ms, got ${requestTimeoutMs}`,
    );
  }
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(NODE_HEADERS_TIMEOUT_MS, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(requestTimeoutMs / 4))),
  };
}

/** What `deck.drain()` reports: the runs that ended, were handed over, or were left. */
interface DrainSummary {
  ended?: readonly string[];
  handedOver?: readonly string[];
  left?: readonly string[];
}

/** `2 ended, 1 handed over, 0 left`; `null` when nothing was in flight. */
function drainCounts(report: DrainSummary): string | null {
  const [ended, handedOver, left] = [report.ended, report.handedOver, report.left].map(
    (ids) => ids?.length ?? 0,
  ) as [number, number, number];
  if (ended + handedOver + left === 0) return null;
  return `${ended} ended, ${handedOver} handed over, ${left} left to the close`;
}
