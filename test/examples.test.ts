/**
 * The examples the docs name (`npm run example`, `example:approval`, `example:context`) run
 * as written: each is started as a real process in an empty directory (so it uses the
 * embedded defaults: ./.agentdeck/state.db, no server, no key).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO_ROOT = resolve(import.meta.dirname, '..');
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function example(file: string, dir: string, ...args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('SERVICE_') && key !== 'OPENAI_API_KEY',
    ),
  );
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      join(REPO_ROOT, 'node_modules/tsx/dist/esm/index.mjs'),
      join(REPO_ROOT, 'examples', file),
      ...args,
    ],
    { cwd: dir, env, timeout: 20_000 },
  );
  return stdout;
}

describe('examples', () => {
  it('approval: pauses in one process and is answered in the next', {
    timeout: 40_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-example-'));
    dirs.push(dir);
    const first = await example('approval.ts', dir, '--pause-only');
    expect(first).toContain('paused on thread expense-');
    expect(first).toContain('Approve 420 EUR for Ada?');
    const second = await example('approval.ts', dir);
    expect(second).toContain("of 'expenses' asks");
    expect(second).toMatch(
      /answered; final state: \{\s+employee: 'Ada',\s+amount: 420,\s+approved: true/,
    );
    expect(second).toContain('due now: 0 | due in 2 s: 1');
    expect(second).toMatch(
      /tick woke: \[\s+\{\s+thread: 'reminder-\d+',\s+result: \{ at: '[^']+', sent: true \}/,
    );
  });

  it('quickstart: plays two turns offline with the scripted model', {
    timeout: 40_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-example-'));
    dirs.push(dir);
    const out = await example('quickstart.ts', dir);
    expect(out).toContain('(no OPENAI_API_KEY: using a scripted model)');
    expect(out).toContain('Tuesday at 9am or 2pm are free.');
    expect(out).toMatch(/status of [0-9a-f-]+: completed/);
  });

  it('context: reaches every site by reference, and build() lists every site a Clock cannot serve', {
    timeout: 40_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-example-'));
    dirs.push(dir);
    const out = await example('context.ts', dir);
    expect(out).toContain("(ada's calendar used by find_slots)");
    expect(out).toContain('Booker: Tuesday 9am or 2pm are free.');
    expect(out).toContain("planner: { day: 'Tuesday', slot: 'Tuesday 9am' }");
    expect(out).toContain(
      "deck 'agentdeck' provides a context of type Clock, but 4 sites require something else:\n" +
        "- tool 'find_slots' of agent 'Booker' requires Calendar",
    );
    expect(out).toContain("- node 'pick' of workflow 'planner' requires Calendar");
  });
});
