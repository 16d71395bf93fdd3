/**
 * `agentdeck eval` as CI runs it (#41): real processes on a project directory and a SQLite
 * file, the project's agent answering from the scripted model server. A dataset made from a
 * JSONL file; an experiment whose scorer's mean meets its threshold exits 0, one under it
 * exits 1, a bad input (a malformed line, a missing target) exits 2 naming it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../src/testing/index.js';
import { binArgs } from './support/cli.js';

let server: ScriptedModelServer;
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-eval-'));
const project = join(dir, '.agentdeck');

beforeAll(async () => {
  server = await scriptedModelServer([]);
  mkdirSync(join(project, 'agents/helper'), { recursive: true });
  mkdirSync(join(project, 'scorers/exact'), { recursive: true });
  writeFileSync(
    join(project, 'agents/helper/agent.ts'),
    "import { Agent } from 'agentdeck';\nexport default new Agent({ name: 'Helper', instructions: 'Answer.' });\n",
  );
  writeFileSync(
    join(project, 'scorers/exact/scorer.ts'),
    "import { Scorer } from 'agentdeck';\n" +
      'export default new Scorer({ name: "exact", threshold: 1,\n' +
      '  score: ({ output, reference }) => (output === reference ? 1 : 0) });\n',
  );
  writeFileSync(
    join(dir, 'items.jsonl'),
    '{"input": "Capital of France?", "reference": "Paris"}\n\n{"input": "Capital of Italy?", "reference": "Rome"}\n',
  );
  writeFileSync(join(dir, 'bad.jsonl'), '{"input": "ok"}\n{"reference": "no input"}\n');
});
afterAll(() => server?.close());

async function agentdeck(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SERVICE_')),
  );
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      binArgs('agentdeck', ...args),
      {
        cwd: dir,
        timeout: 60_000,
        env: {
          ...env,
          SERVICE_EVENTS: `sqlite://${join(dir, 'state.db')}`,
          OPENAI_BASE_URL: server.url,
          OPENAI_API_KEY: 'sk-test',
        },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('agentdeck eval', () => {
  it('exits by the threshold: 0 when met, 1 when missed, 2 for bad input', {
    timeout: 90_000,
  }, async () => {
    const created = await agentdeck(
      'eval',
      'datasets',
      'create',
      'capitals',
      '--file',
      'items.jsonl',
      '--project',
      project,
    );
    expect(created.stderr).toBe('');
    expect(created).toMatchObject({ code: 0, stdout: 'dataset capitals: 2 items\n' });

    server.push({ text: 'Paris' }, { text: 'Rome' });
    const met = await agentdeck(
      'eval',
      'run',
      'capitals',
      '--agent',
      'Helper',
      '--model',
      'gpt-4.1-mini',
      '--threshold',
      'exact=1',
      '--concurrency',
      '1',
      '--project',
      project,
    );
    expect(met.stderr).toBe('');
    expect(met.code).toBe(0);
    expect(met.stdout).toMatch(/exact\s+1\.000\s+2\s+0\s+1\s+ok/);
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-4.1-mini', 'gpt-4.1-mini']);

    server.push({ text: 'Paris' }, { text: 'Milan' });
    const missed = await agentdeck(
      'eval',
      'run',
      'capitals',
      '--agent',
      'Helper',
      '--threshold',
      'exact=0.9',
      '--concurrency',
      '1',
      '--json',
      '--project',
      project,
    );
    expect(missed.code).toBe(1);
    const summary = JSON.parse(missed.stdout);
    expect(summary).toMatchObject({
      status: 'completed',
      missed: ['exact'],
      scores: { exact: { mean: 0.5, passed: 1, failed: 1 } },
    });
    server.assertConsumed();

    expect(server.requests).toHaveLength(4);
  });

  it('refuses bad input with exit code 2, naming it, before opening the project', async () => {
    const { main } = await import('../src/surfaces/cli/eval-command.js');
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => errors.push(line));
    try {
      expect(
        await main(['eval', 'datasets', 'create', 'bad', '--file', join(dir, 'bad.jsonl')]),
      ).toBe(2);
      expect(errors.at(-1)).toMatch(/bad\.jsonl line 2 must be an object with an "input"/);
      expect(await main(['eval', 'run', 'capitals'])).toBe(2);
      expect(errors.at(-1)).toMatch(/--agent NAME and --workflow NAME/);
      expect(await main(['eval', 'run', 'capitals', '--agent', 'A', '--threshold', 'exact'])).toBe(
        2,
      );
      expect(errors.at(-1)).toMatch(/--threshold exact: write it as SCORER=MIN/);
      expect(await main(['eval', 'nope'])).toBe(2);
    } finally {
      spy.mockRestore();
    }
  });
});
