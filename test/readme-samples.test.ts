/**
 * The samples of the README and of every guide in docs/, as printed, in an app of their own
 * built from the packed package (`npm pack`; see support/packed-app.ts): the install line's
 * packages, the recommended tsconfig.json (docs/getting-started.md), every `ts` block
 * type-checked with it (its imports of `agentdeck`, `agentdeck/server`... resolved by the
 * package's `exports`, as a user's are), and the runnable ones run with tsx on
 * this Node.js against the scripted model server (`OPENAI_BASE_URL`), each in a directory of
 * its own with no SERVICE_* setting (so on its defaults: SQLite under its own `./.agentdeck`).
 * The curl lines are replayed against the served example project. Offline: nothing is
 * downloaded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedStep, scriptedModelServer } from '../src/testing/index.js';
import { answerProblems, curlCalls, replay } from './support/curl-replay.js';
import {
  createScratchApp,
  installedPackages,
  packAgentdeck,
  REPO_ROOT,
} from './support/packed-app.js';
import { type CodeBlock, codeBlocks, docFiles } from './support/readme-blocks.js';

const README = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
const blocks: CodeBlock[] = [];
for (const file of await docFiles()) {
  blocks.push(...codeBlocks(await readFile(join(REPO_ROOT, file), 'utf8'), file));
}
const samples = (kind: CodeBlock['kind']) => blocks.filter((block) => block.kind === kind);
/** Where a block is, for test names and file names: `docs/http-api.md line 52`. */
const where = (block: CodeBlock) => `${block.file} line ${block.line}`;

/** What a runnable sample is given and must do. */
interface RunSpec {
  /** The scripted model server's replies, in call order. */
  script: ScriptedStep[];
  /** Every step must be used. @default true */
  consumed?: boolean;
  /** Its standard output: line by line (a RegExp for a line that varies), or all of it. */
  prints?: (string | RegExp)[] | RegExp;
  /** Something its standard error must contain. */
  stderr?: RegExp;
  /** Prepares its directory (the sample is already written there). */
  setup?: (dir: string) => Promise<void>;
  /** A server: called with its URL once it listens; then stopped with SIGTERM, exit 0. */
  serving?: (url: string) => Promise<void>;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

const RUNS: Record<string, RunSpec> = {
  'first-agent.ts': {
    script: [
      { toolCalls: [{ name: 'find_slots', arguments: { day: 'Tuesday' } }] },
      { text: 'Tuesday at 9am or 2pm?' },
      { text: ['Wednesday ', 'at 9am ', 'works.'], delayMs: 20 },
    ],
    // The usage object is printed over several lines.
    prints:
      /^Tuesday at 9am or 2pm\? \{\s+requests: 2,\s+inputTokens: \d+,\s+outputTokens: \d+,\s+totalTokens: \d+,\s+usd: [\d.e-]+\s+\}\nWednesday at 9am works\.\ncompleted\n$/,
  },
  'expenses.ts': {
    script: [],
    prints: [
      new RegExp(`^\\{ question: 'Approve 420 EUR\\?' \\} expense-17 ${UUID}$`),
      '{ amount: 420, approved: true }',
    ],
  },
  'approvals.ts': {
    script: [
      { toolCalls: [{ name: 'refund', arguments: { order: 'A1', amount: 80 } }] },
      { text: 'Refunded 80 EUR on A1.' },
    ],
    // The held call is printed over several lines.
    prints:
      /^\{\s+tool: 'refund',\s+call_id: '[^']+',\s+arguments: \{ order: 'A1', amount: 80 \}\s+\}\ncompleted\n$/,
  },
  'context.ts': {
    script: [
      { toolCalls: [{ name: 'find_slots', arguments: { day: 'Tuesday' } }] },
      { text: 'Tuesday 9am is free.' },
    ],
    prints: ['ada find_slots'],
  },
  'run-control.ts': {
    // The pause comes before the first model call, the cancel most likely before the second.
    script: [{ text: 'Room 4 is booked.' }, { text: 'Room 5 is booked.', delayMs: 2_000 }],
    consumed: false,
    prints: ['paused', 'run.completed', 'cancelled'],
  },
  'observers.ts': {
    script: [{ text: 'Hello!' }],
    prints: [],
    stderr: /run\.completed/,
  },
  'server.ts': {
    script: [{ text: 'Tuesday at 9am works.' }],
    prints: [/^listening on http:\/\/127\.0\.0\.1:\d+$/],
    serving: async (url) => {
      const health = await fetch(`${url}/health`);
      expect(await health.json()).toEqual({
        status: 'ok',
        agents: ['Booker'],
        workflows: [],
        skills: [],
      });
      const chat = await fetch(`${url}/agents/Booker/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: 'user-1', message: 'Can we meet Tuesday?' }),
      });
      expect(await chat.json()).toEqual({ output: 'Tuesday at 9am works.' });
    },
  },
  'serve-project.ts': {
    // The curl lines' two chats, as docs/http-api.md prints their answers.
    script: [
      { text: 'Tuesday at 9am works.' },
      {
        text: ['Wednesday ', 'at 2pm works.'],
        delayMs: 30,
        usage: { inputTokens: 22, outputTokens: 10 },
      },
    ],
    prints: [/^listening on http:\/\/127\.0\.0\.1:\d+$/],
    setup: async (dir) => {
      await cp(join(REPO_ROOT, 'examples/project'), join(dir, 'examples/project'), {
        recursive: true,
      });
      // Its .mcp.json starts `npx --no-install mcp-server-everything` here: the repository's
      // devDependency, linked, so npx finds it without asking the registry.
      await mkdir(join(dir, 'node_modules/.bin'), { recursive: true });
      await symlink(
        join(REPO_ROOT, 'node_modules/.bin/mcp-server-everything'),
        join(dir, 'node_modules/.bin/mcp-server-everything'),
      );
    },
    serving: async (url) => {
      const vars: Record<string, string> = {};
      const problems: string[] = [];
      for (const block of samples('curl')) {
        for (const call of curlCalls(block.code)) {
          const answer = await replay(call, url, vars);
          const runId = answer.headers.get('x-run-id');
          if (runId) vars.RUN = runId; // "$RUN: the run id in the X-Run-Id header of the answers above"
          problems.push(...answerProblems(call, answer));
        }
      }
      expect(problems).toEqual([]);
    },
  },
};

/** This process's environment less the settings a sample must not inherit. */
function sampleEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([key]) => !/^(SERVICE_|OPENAI_|VITEST|VITE_|npm_|NODE_ENV$|NODE_OPTIONS$|TEST$)/.test(key),
  );
  return { ...Object.fromEntries(inherited), ...extra };
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node <args>` with this process's Node.js (24 under `npm test`); killed after 50 s. */
function start(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; exit: Promise<Exit>; stdout: () => string } {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stuck = setTimeout(() => child.kill('SIGKILL'), 50_000);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<Exit>((done) =>
    child.on('exit', (code) => {
      clearTimeout(stuck);
      done({ code, stdout, stderr });
    }),
  );
  return { child, exit, stdout: () => stdout };
}

async function listening(started: ReturnType<typeof start>, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = /listening on (http:\/\/\S+)/.exec(started.stdout());
    if (found?.[1]) return found[1];
    if (started.child.exitCode !== null) throw new Error(`exited: ${(await started.exit).stderr}`);
    if (Date.now() > deadline) throw new Error('not listening after 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function expectPrinted(printed: string, expected: readonly (string | RegExp)[] | RegExp): void {
  if (expected instanceof RegExp) {
    expect(printed).toMatch(expected);
    return;
  }
  const lines = printed.split('\n');
  if (lines.at(-1) === '') lines.pop();
  expect(lines).toHaveLength(expected.length);
  for (const [i, want] of expected.entries()) {
    if (typeof want === 'string') expect(lines[i]).toBe(want);
    else expect(lines[i]).toMatch(want);
  }
}

let root = '';
let app = '';
const tools = {
  tsc: () => join(app, 'node_modules/typescript/bin/tsc'),
  vitest: () => join(app, 'node_modules/vitest/vitest.mjs'),
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentdeck-readme-'));
  app = join(root, 'app');
  const { tarball } = await packAgentdeck(root);
  const [install] = samples('install');
  await createScratchApp(app, tarball, installedPackages(install?.code ?? ''));
  for (const block of samples('file')) await writeFile(join(app, block.arg), block.code);
  for (const block of samples('compile')) {
    await mkdir(join(app, 'samples'), { recursive: true });
    const name = `${block.file.replace(/\.md$/, '').replace(/\W+/g, '-')}-line-${block.line}.ts`;
    await writeFile(join(app, 'samples', name), block.code);
  }
  for (const block of [...samples('run'), ...samples('test')]) {
    const dir = join(app, block.arg.replace(/\.ts$/, ''));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, block.arg), block.code);
    await RUNS[block.arg]?.setup?.(dir);
  }
}, 120_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the samples of the README and docs/, in an app built from the packed package', () => {
  it('marks its samples: an install line, a tsconfig.json, runnable ones, few fragments', () => {
    expect(samples('install')).toHaveLength(1);
    expect(installedPackages(samples('install')[0]?.code ?? '')).toEqual(
      expect.arrayContaining(['agentdeck', 'zod', '@langchain/langgraph', 'typescript']),
    );
    expect(samples('file').map((block) => block.arg)).toEqual(['tsconfig.json']);
    expect(
      samples('run')
        .map((block) => block.arg)
        .sort(),
    ).toEqual(Object.keys(RUNS).sort());
    expect(samples('test').map((block) => block.arg)).toEqual(['booker.test.ts']);
    expect(samples('curl').length).toBeGreaterThan(0);
    // A fragment says why it cannot compile alone; keep them rare.
    for (const fragment of samples('fragment')) expect(fragment.arg).not.toBe('');
    expect(samples('fragment').length).toBeLessThanOrEqual(2);
    // A README that starts with its two commands.
    expect(README.split('\n').slice(0, 14).join('\n')).toMatch(
      /```bash\nnpm install && npm run serve .*\nnpm install && npm test /,
    );
    // Every TypeScript block is a sample of some kind: none escapes the check.
    for (const block of blocks.filter((b) => ['ts', 'typescript'].includes(b.lang))) {
      expect(block.kind, where(block)).not.toBe('other');
    }
    // Each runnable sample has a name of its own, across every file.
    const names = [...samples('run'), ...samples('test')].map((block) => block.arg);
    expect(new Set(names).size).toBe(names.length);
  });

  it('finds every TypeScript block, indented ones too', () => {
    const found = codeBlocks(
      ['- a list item:', '', '  ```ts', "  const x: number = 'no';", '  ```', ''].join('\n'),
      'docs/example.md',
    );
    expect(found).toEqual([
      expect.objectContaining({ kind: 'compile', code: "const x: number = 'no';\n", line: 3 }),
    ]);
    expect(() => codeBlocks('```ts\nconst x = 1;\n', 'docs/open.md')).toThrow(/never closed/);
    expect(() => codeBlocks('<!-- sample: runs x.ts -->\n```ts\n```\n', 'a.md')).toThrow(
      /a\.md line 1: unknown sample marker/,
    );
  });

  it('type-checks every ts sample with the tsconfig.json it recommends', async () => {
    const { code, stdout, stderr } = await start([tools.tsc(), '-p', '.'], app, sampleEnv({})).exit;
    expect(`${stdout}${stderr}`).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  for (const block of samples('run')) {
    const name = block.arg;
    it.concurrent(`runs ${name} (${where(block)})`, { timeout: 60_000 }, async () => {
      const spec = RUNS[name];
      if (!spec) throw new Error(`no expectations for the sample ${name} (${where(block)})`);
      const model = await scriptedModelServer(spec.script);
      try {
        const env = sampleEnv({
          OPENAI_BASE_URL: model.url,
          OPENAI_API_KEY: 'sk-readme',
          HOST: '127.0.0.1',
          PORT: '0',
        });
        // `node --import tsx`, tsx's loader in one process, rather than `npx tsx`, whose
        // wrapper gives the sample 30 ms to acknowledge a relayed SIGTERM before it SIGKILLs
        // it: on a loaded machine that cut short the servers' graceful shutdown (exit 143).
        const dir = join(app, name.replace(/\.ts$/, ''));
        const started = start(['--import', 'tsx', name], dir, env);
        if (spec.serving) {
          try {
            await spec.serving(await listening(started, 30_000));
          } finally {
            started.child.kill('SIGTERM');
          }
        }
        const exit = await started.exit;
        expect(exit.code, exit.stderr).toBe(0);
        expectPrinted(exit.stdout, spec.prints ?? []);
        if (spec.stderr) expect(exit.stderr).toMatch(spec.stderr);
        if (spec.consumed !== false) model.assertConsumed();
      } finally {
        await model.close();
      }
    });
  }

  for (const block of samples('test')) {
    const name = block.arg;
    it.concurrent(`runs ${name} with vitest (${where(block)})`, {
      timeout: 60_000,
    }, async () => {
      const dir = join(app, name.replace(/\.ts$/, ''));
      const env = sampleEnv({ NO_COLOR: '1' });
      const exit = await start([tools.vitest(), 'run', name], dir, env).exit;
      expect(exit.code, `${exit.stdout}${exit.stderr}`).toBe(0);
      expect(exit.stdout).toMatch(/Tests\s+2 passed/);
    });
  }
});
