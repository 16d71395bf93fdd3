/**
 * For fault-injection tests: a PostgreSQL server of a test's own, in a temporary directory on
 * a free port of 127.0.0.1 (trust auth, superuser `postgres`), which the test may stop (as a
 * crash would, `immediate` by default), start again on the same port, and destroy. The shared
 * server on 5432 is never touched: the unix socket lives in the temporary directory too. As
 * root, every server command runs as the `postgres` user (Postgres refuses to run as root).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freeTcpPort } from './free-port.js';

export type StopMode = 'immediate' | 'fast';

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  /** The cluster's data directory (inside the temporary directory). */
  dataDir: string;
  /** Stop the server (`pg_ctl stop -m <mode>`, `immediate` by default) and wait until it is down. */
  stop(mode?: StopMode): Promise<void>;
  /** Start it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `stop('immediate')` then `start()`. */
  restart(): Promise<void>;
  /** Stop it if running and remove the temporary directory; safe to call twice. */
  destroy(): Promise<void>;
  /** The server log's text so far. */
  log(): string;
}

const SERVER_USER = 'postgres';
/** Bounds for one server command and for the wait for a started server to accept connections. */
const COMMAND_TIMEOUT_MS = 30_000;
const READY_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 50;
const LOG_TAIL_LINES = 40;

const isRoot = process.getuid?.() === 0;

/**
 * The directory with `initdb`, `pg_ctl` and `pg_isready`: `PG_BIN` if set, else the highest
 * version under /usr/lib/postgresql (Debian's layout, where they are not on PATH), else PATH.
 */
export function postgresBinDir(): string | null {
  const override = process.env.PG_BIN;
  if (override) return existsSync(join(override, 'initdb')) ? override : null;
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => existsSync(join(debianRoot, name, 'bin', 'initdb')))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    if (versions[0] !== undefined) return join(debianRoot, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb'))) return dir;
  }
  return null;
}

/** Null when own servers can be started here, else why the tests that need one are skipped. */
export function ownPostgresUnavailableReason(): string | null {
  if (postgresBinDir() === null) {
    return process.env.PG_BIN
      ? `No initdb in PG_BIN=${process.env.PG_BIN}.`
      : 'No initdb found under /usr/lib/postgresql/*/bin or on PATH (set PG_BIN to its directory).';
  }
  if (isRoot) {
    if (spawnSync('id', ['-u', SERVER_USER]).status !== 0) {
      return `Running as root but there is no '${SERVER_USER}' user to run the server as.`;
    }
    if (spawnSync('runuser', ['--help']).error) {
      return 'Running as root but runuser (to run the server as postgres) is not available.';
    }
  }
  return null;
}

/** Servers not yet destroyed, stopped when the process exits so a crashed test leaves none behind. */
const liveServers = new Set<{ binDir: string; dir: string; dataDir: string }>();
let exitHandlerInstalled = false;

function stopLeftoversOnExit(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const server of liveServers) {
      const [command, args] = asServerUser(join(server.binDir, 'pg_ctl'), [
        '-D',
        server.dataDir,
        '-m',
        'immediate',
        'stop',
      ]);
      spawnSync(command, args, { cwd: server.dir, stdio: 'ignore', timeout: 10_000 });
      rmSync(server.dir, { recursive: true, force: true });
    }
  });
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const unavailable = ownPostgresUnavailableReason();
  const binDir = postgresBinDir();
  if (unavailable !== null || binDir === null) throw new Error(unavailable ?? 'No initdb.');

  const dir = await mkdtemp(join(tmpdir(), 'own-postgres-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const entry = { binDir, dir, dataDir };
  liveServers.add(entry);
  stopLeftoversOnExit();
  let destroyed = false;

  const tool = (name: string, args: string[]) =>
    run(join(binDir, name), args, { cwd: dir, timeoutMs: COMMAND_TIMEOUT_MS });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const logTail = () => log().split('\n').slice(-LOG_TAIL_LINES).join('\n');

  try {
    if (isRoot) {
      const { uid, gid } = serverUserIds();
      await chown(dir, uid, gid);
    }
    // --no-sync: the cluster is thrown away, so skipping fsync saves most of initdb's time.
    await tool('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  } catch (error) {
    liveServers.delete(entry);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await freeTcpPort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  const isReady = () =>
    tool('pg_isready', ['-h', '127.0.0.1', '-p', String(port), '-t', '1']).then(
      () => true,
      () => false,
    );

  const start = async () => {
    if (destroyed) throw new Error(`Own Postgres in ${dir} was destroyed; it cannot start.`);
    // pg_ctl passes -o through a shell, hence the quoted socket directory.
    const serverOptions = [
      `-p ${port}`,
      `-k '${dir}'`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c max_connections=200',
    ].join(' ');
    const timeoutSeconds = String(Math.ceil(READY_TIMEOUT_MS / 1000));
    try {
      await tool('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        logFile,
        '-o',
        serverOptions,
        '-t',
        timeoutSeconds,
        '-w',
        'start',
      ]);
    } catch (error) {
      throw new Error(
        `Own Postgres on port ${port} did not start: ${(error as Error).message}\n` +
          `Server log (last lines):\n${logTail()}`,
      );
    }
    // pg_ctl -w checks through the unix socket; the tests connect over TCP, so wait for that.
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let attempt = 0; attempt < READY_TIMEOUT_MS / READY_POLL_MS; attempt++) {
      if (await isReady()) return;
      if (Date.now() > deadline) break;
      await sleep(READY_POLL_MS);
    }
    throw new Error(
      `Own Postgres on port ${port} did not accept TCP connections within ${READY_TIMEOUT_MS} ms.\n` +
        `Server log (last lines):\n${logTail()}`,
    );
  };

  const stop = async (mode: StopMode = 'immediate') => {
    try {
      await tool('pg_ctl', ['-D', dataDir, '-m', mode, '-t', '30', '-w', 'stop']);
    } catch (error) {
      // Exit status 3 from `pg_ctl status` means not running: stopping a stopped server is fine.
      const status = await tool('pg_ctl', ['-D', dataDir, 'status']).catch(
        (statusError: RunError) => statusError,
      );
      if (status instanceof RunError && status.exitCode === 3) return;
      throw new Error(
        `Own Postgres on port ${port} did not stop: ${(error as Error).message}\n` +
          `Server log (last lines):\n${logTail()}`,
      );
    }
  };

  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    try {
      if (existsSync(dataDir)) await stop('immediate');
    } finally {
      liveServers.delete(entry);
      await rm(dir, { recursive: true, force: true });
    }
  };

  try {
    await start();
  } catch (error) {
    await destroy().catch(() => {});
    throw error;
  }

  return {
    url,
    port,
    dataDir,
    stop,
    start,
    restart: async () => {
      await stop('immediate');
      await start();
    },
    destroy,
    log,
  };
}

/** A command that exited non-zero (or not at all), with its exit code and output. */
class RunError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
  }
}

/** The command line running `command` as the server user: through runuser when we are root. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return isRoot ? ['runuser', ['-u', SERVER_USER, '--', command, ...args]] : [command, args];
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number },
): Promise<string> {
  const [file, fileArgs] = asServerUser(command, args);
  // PG* variables of the caller (PGHOST, PGPORT, PGDATA...) would point the tools elsewhere.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('PG')),
  );
  return new Promise((resolve, reject) => {
    execFile(
      file,
      fileArgs,
      // The cwd is the temporary directory: the postgres user may not be allowed into ours.
      { cwd: options.cwd, env, timeout: options.timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const exitCode = typeof error.code === 'number' ? error.code : null;
        const output = `${stderr}${stdout}`.trim();
        const name = command.split('/').at(-1);
        const reason = error.killed ? `killed after ${options.timeoutMs} ms` : `exit ${exitCode}`;
        reject(new RunError(`${name} ${args.join(' ')}: ${reason}: ${output}`, exitCode));
      },
    );
  });
}

function serverUserIds(): { uid: number; gid: number } {
  const idOf = (flag: '-u' | '-g') => {
    const result = spawnSync('id', [flag, SERVER_USER], { encoding: 'utf8' });
    const id = Number.parseInt(result.stdout ?? '', 10);
    if (result.status !== 0 || !Number.isInteger(id)) {
      throw new Error(`Cannot find the ids of the '${SERVER_USER}' user: ${result.stderr}`);
    }
    return id;
  };
  return { uid: idOf('-u'), gid: idOf('-g') };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
