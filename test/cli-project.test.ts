/**
 * The project commands of `agentdeck` (`runs prune`, `schedules`, ...) as a user runs them:
 * real processes beside one real `agentdeck serve` of test/fixtures/cli-project (a workflow
 * that ends well, one that fails, a schedule of each, and an MCP server that notes in a file
 * each time it is started), on the SQLite file the server writes in its directory. One server
 * for the file; each command is a process of its own, as a user's would be.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../src/stores/sqlite/index.js';
import { ev, run } from '../src/testing/event-store-events.js';
import { binArgs } from './support/cli.js';
import { killServers, type ServerProcess, startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = join(ROOT, 'test/fixtures/cli-project/.agentdeck');

/** Where the MCP server of the process named `label` notes that it started. */
const marks = mkdtempSync(join(tmpdir(), 'agentdeck-marks-'));
const marker = (label: string) => join(marks, label);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `agentdeck <args>` in `cwd`, with no SERVICE_* or OPENAI_* setting of this process. */
function agentdeck(cwd: string, label: string, ...args: string[]): Promise<Outcome> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('SERVICE_') && !key.startsWith('OPENAI_'),
    ),
  );
  return new Promise((done) => {
    execFile(
      process.execPath,
      binArgs('agentdeck', ...args),
      { cwd, timeout: 60_000, env: { ...env, AGENTDECK_TEST_MCP_MARKER: marker(label) } },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

let served: string; // the server's directory: its state is served/.agentdeck/state.db
let server: ServerProcess;
let url: string;

/** A run's status as the server's file records it (read-only, beside the server). */
function recordedStatus(runId: string): string | undefined {
  const db = new DatabaseSync(join(served, '.agentdeck/state.db'), { readOnly: true });
  try {
    return db.prepare('SELECT status FROM runs WHERE run_id = ?').get(runId)?.status as string;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  served = mkdtempSync(join(tmpdir(), 'agentdeck-served-'));
  mkdirSync(join(served, 'elsewhere'));
  server = startServer(PROJECT, { AGENTDECK_TEST_MCP_MARKER: marker('serve') }, served);
  url = await server.url;
}, 60_000);

afterAll(async () => {
  await killServers([server]);
});

describe('agentdeck project commands', () => {
  it('runs prune starts none of the MCP servers a server of the project starts', async () => {
    const pruned = await agentdeck(
      served,
      'prune',
      ...['runs', 'prune', '--older-than', '30d', '--project', PROJECT],
    );
    expect(pruned).toMatchObject({ code: 0, stdout: 'removed 0 runs and 0 workflow threads\n' });
    expect(existsSync(marker('serve'))).toBe(true); // the configuration does start it
    expect(existsSync(marker('prune'))).toBe(false);
  }, 60_000);

  it('schedules trigger waits for its run, says how it ended, and exits 1 when it failed', async () => {
    const [ok, boom] = await Promise.all([
      agentdeck(served, 'trigger', 'schedules', 'trigger', 'nightly-jot', '--project', PROJECT),
      agentdeck(served, 'trigger', 'schedules', 'trigger', 'nightly-boom', '--project', PROJECT),
    ]);
    const okRun = /^schedule nightly-jot started run (\S+)\n/.exec(ok.stdout)?.[1] as string;
    expect(ok).toMatchObject({
      code: 0,
      stdout: `schedule nightly-jot started run ${okRun}\nrun ${okRun} completed\n`,
    });
    expect(recordedStatus(okRun)).toBe('completed');
    const boomRun = /^schedule nightly-boom started run (\S+)\n/.exec(boom.stdout)?.[1] as string;
    expect(boom.code).toBe(1);
    expect(boom.stderr).toContain(`run ${boomRun} failed: Error: the ledger is closed\n`);
    expect(recordedStatus(boomRun)).toBe('failed');
  }, 60_000);

  it('schedules ls --json prints what GET /schedules lists, in its snake_case form', async () => {
    const listed = await agentdeck(served, 'ls', 'schedules', 'ls', '--json', '--project', PROJECT);
    expect(listed.code).toBe(0);
    const overHttp = (await (await fetch(`${url}/schedules`)).json()) as { schedules: unknown[] };
    expect(overHttp.schedules).toHaveLength(2);
    expect(JSON.parse(listed.stdout)).toEqual(overHttp.schedules);
  }, 60_000);

  it('takes the project agentdeck serve serves where ./.agentdeck holds only the state, and says what a prune kept', async () => {
    // An ended run of the project's, and one of a name it does not know (kept, and counted).
    const store = new SqliteEventStore({ path: join(served, '.agentdeck/state.db') });
    const ours = { ...run({ origin: 'jot' }), runId: 'jot-by-hand' };
    const theirs = { ...run({ origin: 'retired' }), runId: 'retired-by-hand' };
    for (const r of [ours, theirs]) await store.append([ev.started(r), ev.completed(r)]);
    await store.close();
    const pruned = await agentdeck(
      served,
      'found',
      'runs',
      'prune',
      '--older-than',
      '0s',
      '--dry-run',
    );
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toBe(
      `agentdeck: project ${PROJECT}, the one agentdeck serve last served on ${join(served, '.agentdeck/state.db')} (pass --project DIR for another)\n`,
    );
    expect(pruned.stdout).toContain('would remove run jot-by-hand (jot, completed, ended ');
    expect(pruned.stdout).toContain(
      'kept 1 run of names this project does not know (retired: 1): ',
    );
    expect(existsSync(marker('found'))).toBe(false);
  }, 60_000);

  it('says plainly that there is no project, and what to pass, where there is none', async () => {
    const elsewhere = join(served, 'elsewhere');
    const [listed, ticked] = await Promise.all([
      agentdeck(elsewhere, 'none', 'schedules', 'ls'),
      agentdeck(elsewhere, 'none', 'tick'),
    ]);
    const state = join(elsewhere, '.agentdeck/state.db');
    expect(listed).toEqual({
      code: 1,
      stdout: '',
      stderr: `agentdeck: no project here: there is no ./.agentdeck, and no agentdeck serve has recorded the project it serves in ${state}; pass --project DIR, the directory agentdeck serve was given (or run this where it was started)\n`,
    });
    expect(ticked.code).toBe(1);
    expect(ticked.stderr).toContain('; pass the project directory (agentdeck tick DIR), ');
    expect(existsSync(join(elsewhere, '.agentdeck'))).toBe(false); // no state made here either
  }, 60_000);

  // Last: it stops the server.
  it('runs vacuum refuses while a server serves on the file, and runs once the server is gone', async () => {
    const state = join(served, '.agentdeck/state.db');
    const refused = await agentdeck(served, 'vacuum', 'runs', 'vacuum');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `agentdeck: a server is serving on ${state} (an agentdeck serve holds ${state}-serving), so nothing was done: `,
    );
    expect(refused.stderr).toContain('Stop the server, run agentdeck runs vacuum, then start');
    // A server that dies, even by SIGKILL, lets go of the file with its process.
    await killServers([server]);
    const vacuumed = await agentdeck(served, 'vacuum', 'runs', 'vacuum');
    expect(vacuumed.code).toBe(0);
    expect(vacuumed.stdout).toMatch(/^vacuumed .*state\.db: \d+ bytes before, \d+ after\n$/);
  }, 60_000);
});
