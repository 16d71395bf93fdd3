/**
 * The command names as a user types them, in real processes: `agentdeck` (preferred) does
 * what `service` and `service-serve` do, every command answers `--version` with the package's
 * version, `agentdeck serve --cors-origin` answers that origin's preflight over a real socket,
 * and a server bound beyond loopback with no API keys says once what is open to other machines.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type Bin, binArgs } from './support/cli.js';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(REPO_ROOT, 'examples/project/.agentdeck');
const VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('SERVICE_') && !key.startsWith('OPENAI_'),
    ),
  );
  return { ...env, ...extra };
}

const run = (name: Bin, args: string[], cwd = REPO_ROOT) =>
  promisify(execFile)(process.execPath, binArgs(name, ...args), {
    cwd,
    env: cleanEnv(),
  });

/** `agentdeck serve` in a fresh directory; resolves its URL and what it printed by then. */
function serveWith(args: string[], env: Record<string, string>) {
  const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-cli-'));
  const child = spawn(process.execPath, binArgs('agentdeck', 'serve', PROJECT, ...args), {
    cwd,
    env: cleanEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  return new Promise<{ url: string; out: () => string }>((ready, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (found?.[1]) ready({ url: found[1].replace('0.0.0.0', '127.0.0.1'), out: () => out });
    });
    child.on('exit', (code) => fail(new Error(`agentdeck serve exited with ${code}: ${out}`)));
  });
}

describe('the command names', () => {
  it('answer --version with the package version', async () => {
    expect((await run('agentdeck', ['--version'])).stdout).toBe(`agentdeck ${VERSION}\n`);
    expect((await run('service', ['--version'])).stdout).toBe(`service (agentdeck) ${VERSION}\n`);
    expect((await run('service-serve', ['--version'])).stdout).toBe(
      `service-serve (agentdeck) ${VERSION}\n`,
    );
  }, 30_000);

  it('agentdeck --help names every command', async () => {
    const help = (await run('agentdeck', ['--help'])).stdout;
    for (const command of [
      'serve',
      'runs signal',
      'runs show',
      'runs ls',
      'runs approve',
      'runs reject',
      'runs prune',
      'runs vacuum',
      'tick',
      'schedules',
      'status',
      'eval datasets',
      'eval run',
    ]) {
      expect(help).toMatch(new RegExp(`^  agentdeck ${command}( |$)`, 'm'));
    }
  }, 30_000);

  it('agentdeck runs does what service runs does', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'agentdeck-cli-'));
    expect((await run('agentdeck', ['runs', 'ls'], cwd)).stdout).toBe('no runs\n');
    const failure = await run('agentdeck', ['runs', 'show', 'nope'], cwd).catch(
      (error: { stderr: string; code: number }) => error,
    );
    expect(failure).toMatchObject({
      code: 1,
      stderr: "agentdeck: no run 'nope' in the event store; list runs with: agentdeck runs ls\n",
    });
    const unknown = await run('agentdeck', ['frobnicate']).catch(
      (error: { stderr: string; code: number }) => error,
    );
    expect(unknown).toMatchObject({ code: 2 });
    expect((unknown as { stderr: string }).stderr).toContain(
      "agentdeck: unknown command 'frobnicate'",
    );
  }, 30_000);

  it('agentdeck serve allows a --cors-origin, and says what is open beyond loopback without keys', async () => {
    const { url, out } = await serveWith(['--cors-origin', 'http://localhost:3000'], {
      HOST: '0.0.0.0',
    });
    const preflight = await fetch(`${url}/workflows/expense-approval`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(out()).toContain(
      "agentdeck: no API keys are set: the 1.2.1 routes (chat, workflows, pause, cancel, resume) and the run history are open to anyone who can reach 0.0.0.0; answers, timers, schedules and the run inspector's controls are refused to other machines",
    );
  }, 60_000);

  it('says nothing of open routes on loopback', async () => {
    const { out } = await serveWith([], { HOST: '127.0.0.1' });
    expect(out()).not.toContain('open to anyone');
  }, 60_000);
});
