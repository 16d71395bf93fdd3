/**
 * Test support: `service-serve` as a real child process (this process's Node, with tsx) on a
 * project directory, with an environment of our choosing and none of this process's
 * SERVICE_* or OPENAI_* settings. Resolves its URL once it says it is serving.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { binArgs, REPO_ROOT } from './cli.js';

export interface ServerProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`, once listening; rejects if the process exits first. */
  url: Promise<string>;
  /** The exit code (null after a signal). */
  exited: Promise<number | null>;
  out(): string;
  err(): string;
}

/**
 * Start `service-serve <project>` on a free port of 127.0.0.1 with `env` added to a clean
 * environment, in `cwd` (where its default SQLite store lives; the repository by default).
 */
export function startServer(
  project: string,
  env: Record<string, string>,
  cwd: string = REPO_ROOT,
  args: readonly string[] = [],
): ServerProcess {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('SERVICE_') && !key.startsWith('OPENAI_'),
    ),
  );
  const child = spawn(process.execPath, binArgs('service-serve', project, ...args), {
    cwd,
    env: { ...clean, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = new Promise<string>((ready, fail) => {
    child.stdout?.on('data', () => {
      const found = /on (http:\/\/[\d.]+:\d+)/.exec(stdout);
      if (found?.[1]) ready(found[1]);
    });
    child.on('exit', (code) => fail(new Error(`service-serve exited with ${code}: ${stderr}`)));
  });
  url.catch(() => {}); // reported to whoever awaits it
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return { child, url, exited, out: () => stdout, err: () => stderr };
}

/** SIGKILL every server and wait until each has exited. */
export async function killServers(servers: readonly ServerProcess[]): Promise<void> {
  for (const server of servers) server.child.kill('SIGKILL');
  await Promise.all(servers.map((server) => server.exited));
}
