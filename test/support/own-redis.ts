/**
 * For fault-injection tests: a Redis server of a test's own, a child process of this one on a
 * free port of 127.0.0.1 with persistence off, which the test may kill (as a crash would), start
 * again on the same port, and destroy. The shared server on 6379 is never touched. Live servers
 * are SIGKILLed when this process exits, so a crashed test leaves none running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { freeTcpPort } from './free-port.js';

export interface OwnRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Kill the server (SIGKILL by default) and wait until the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Start it again on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** `stop()` then `start()`. */
  restart(): Promise<void>;
  /** Kill it if running; safe to call twice. */
  destroy(): Promise<void>;
  /** What the server printed so far (its log goes to stdout). */
  log(): string;
}

const READY_TIMEOUT_MS = 10_000;
const READY_POLL_MS = 25;
const EXIT_TIMEOUT_MS = 10_000;
const PING_TIMEOUT_MS = 500;

const liveChildren = new Set<ChildProcess>();
let exitHandlerInstalled = false;

function killLeftoversOnExit(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  killLeftoversOnExit();
  const port = await freeTcpPort();
  let child: ChildProcess | null = null;
  let output = '';
  let destroyed = false;

  const start = async () => {
    if (destroyed) throw new Error(`Own Redis on port ${port} was destroyed; it cannot start.`);
    if (child) return;
    // A child rather than --daemonize, so that stopping it is a kill and it dies with us.
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    liveChildren.add(started);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    started.stdout?.on('data', collect);
    started.stderr?.on('data', collect);
    let exited = false;
    let spawnError: Error | null = null;
    started.once('error', (error) => {
      spawnError = error;
    });
    started.once('exit', () => {
      exited = true;
      liveChildren.delete(started);
      if (child === started) child = null;
    });

    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let attempt = 0; attempt < READY_TIMEOUT_MS / READY_POLL_MS; attempt++) {
      if (spawnError) throw new Error(`Cannot run redis-server: ${String(spawnError)}`);
      // An early exit (the port taken, a bad option) fails at once instead of at the deadline.
      if (exited) throw new Error(`Own Redis on port ${port} exited on start:\n${output}`);
      if (await answersPing(port)) return;
      if (Date.now() > deadline) break;
      await sleep(READY_POLL_MS);
    }
    await stop();
    throw new Error(
      `Own Redis on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms:\n${output}`,
    );
  };

  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), EXIT_TIMEOUT_MS);
      running.once('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    running.kill(signal);
    if (!(await exited)) {
      throw new Error(`Own Redis on port ${port} did not exit within ${EXIT_TIMEOUT_MS} ms.`);
    }
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      await stop('SIGKILL');
    },
    log: () => output,
  };
}

/** Whether a server on the port answers a plain inline PING with +PONG (no client library). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(PING_TIMEOUT_MS, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
