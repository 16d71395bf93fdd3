/**
 * Durable workflows through the deck, side by side with raw LangGraph on the same
 * checkpointer and with Mastra's workflow engine on the same kind of store (issues 22, 43):
 * 1. A 3-node durable workflow (three nodes in a line): `deck.run(name, input, { sessionId })`
 *    on the SQLite default and on Postgres, against the same graph compiled by hand on the
 *    same kind of checkpointer (`graph.invoke`), and Mastra's `run.start` of the same three
 *    steps with its LibSQL storage on a file (SQLite phase) or `@mastra/pg` (Postgres phase),
 *    and in memory, one at a time and 16 at once.
 * 2. An interrupt + answer cycle (prepare -> ask, which interrupts -> finish): `deck.run` then
 *    `deck.answer`, against raw `invoke` then `invoke(new Command({ resume }))`, and Mastra's
 *    `start` to `suspend()` then `resume` on a new handle of the stored run; one at a time
 *    and 16 at once.
 * 3. The 3-node workflow not durable over HTTP: the deck's `POST /workflows/{name}` against a
 *    hand-written Hono route invoking the same graph, both through `app.request()`.
 * 4. The same deck rows with the deck's event log in memory (its checkpoints still on SQLite):
 *    the share of the deck's cost that is its log on disk.
 * 5. After the timed rounds, the Postgres round trips per run and per cycle of each peer,
 *    counted exactly (support/workflow-statements.ts).
 *
 * Each round opens each phase (SQLite, log in memory, Postgres; reversed every other round) on fresh
 * files, and runs its cases in interleaved blocks whose order rotates, so that noise on a
 * shared machine falls on all of them alike. Medians over the rounds are reported; ratios are
 * the medians of the per-round ratios, each taken within one phase of one round.
 *
 * Run: `npm run bench:workflow` (or `npx tsx bench/workflow.bench.ts [rounds] [runs]`). Needs
 * Postgres (TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; a scratch
 * database is created and dropped, Mastra's tables in schemas of it). It rewrites its own
 * section of bench/RESULTS.md.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadAtStart } from './support/report.js';
import type { Case, Phase } from './support/workflow-cases.js';
import { CASES } from './support/workflow-cases.js';
import { type MastraEngines, runBlock } from './support/workflow-iterations.js';
import { MASTRA_LIBSQL_FILES, openMastra, openPhase } from './support/workflow-phases.js';
import { report, type Sample, type Settings } from './support/workflow-report.js';
import { check } from './support/workflow-shapes.js';
import {
  countWorkflowStatements,
  printStatementKinds,
  serverTimes,
} from './support/workflow-statements.js';

const SETTINGS: Settings = {
  rounds: Number(process.argv[2] ?? 5),
  /** Iterations per case per round (runs, cycles or requests). */
  runs: Number(process.argv[3] ?? 192),
  /** Most time one case may take in one round; it stops early, its rate still measured. */
  caseBudgetMs: 3_000,
  /** Blocks per measurement: each case runs `runs / blocks` at a time, in turn. */
  blocks: 12,
};
const WARMUP = 48;
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PHASES: readonly Phase[] = ['sqlite', 'log-in-memory', 'postgres'];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** One round of a phase: its cases, interleaved in blocks whose order rotates. */
async function measurePhase(
  phase: Phase,
  iterations: number,
  where: { dir: string; postgresUrl: string },
  mastra: MastraEngines,
): Promise<Map<Case, Sample>> {
  const { caseBudgetMs, blocks } = SETTINGS;
  const cases = CASES.filter((c) => c.phase === phase);
  const { resources, close } = await openPhase(phase, where, mastra);
  try {
    const started = performance.now();
    const totals = cases.map((test, index) => ({
      test,
      // Thread ids of their own per case: two cases may run the same workflow.
      iterate: test.iterate({ ...resources, prefix: `${resources.prefix}${index}-` }),
      size: Math.max(test.concurrency, Math.round(iterations / blocks)),
      deadline: started + caseBudgetMs * cases.length,
      spentMs: 0,
      done: 0,
      cpuMicros: 0,
    }));
    for (let block = 0; block < blocks; block += 1) {
      for (let k = 0; k < totals.length; k += 1) {
        const t = totals[(block + k) % totals.length] as (typeof totals)[number];
        if (t.spentMs >= caseBudgetMs) continue;
        const cpu = process.cpuUsage();
        const begun = performance.now();
        const deadline = Math.min(t.deadline, begun + caseBudgetMs - t.spentMs);
        t.done += await runBlock(t.iterate, t.done, t.size, t.test.concurrency, deadline);
        t.spentMs += performance.now() - begun;
        const { user, system } = process.cpuUsage(cpu);
        t.cpuMicros += user + system;
      }
    }
    return new Map(
      totals.map((t) => [
        t.test,
        { msPerIteration: t.spentMs / t.done, cpuMsPerIteration: t.cpuMicros / 1000 / t.done },
      ]),
    );
  } finally {
    await close();
  }
}

/** Mastra LibSQL must be on its files, not in memory: after the warm-up they hold its runs. */
function checkMastraOnFiles(dir: string): void {
  for (const file of MASTRA_LIBSQL_FILES) {
    const bytes = statSync(join(dir, file), { throwIfNoEntry: false })?.size ?? 0;
    check(bytes > 0, `Mastra LibSQL stores in ${file}, ${bytes} bytes after the warm-up`);
  }
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const database = `agentdeck_bench_wf_${process.pid}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${database}`);
  const where = { dir, postgresUrl: url.href };
  const samples = new Map<Case, Sample[]>(CASES.map((c) => [c, []]));
  const mastra = openMastra(dir, url.href);
  try {
    for (const phase of PHASES) {
      await measurePhase(phase, WARMUP, where, mastra.engines); // the JIT, the files, the pools
    }
    checkMastraOnFiles(dir);
    for (let round = 0; round < SETTINGS.rounds; round += 1) {
      const order = round % 2 === 0 ? PHASES : [...PHASES].reverse();
      for (const phase of order) {
        for (const [test, sample] of await measurePhase(
          phase,
          SETTINGS.runs,
          where,
          mastra.engines,
        )) {
          samples.get(test)?.push(sample);
        }
      }
      console.log(`round ${round + 1}/${SETTINGS.rounds} done`);
    }
    const statements = await countWorkflowStatements(where, mastra.engines);
    printStatementKinds(statements);
    report({
      samples,
      statements,
      server: await serverTimes(url.href),
      load,
      settings: SETTINGS,
    });
  } finally {
    await mastra.close();
    rmSync(dir, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

await main();
process.exit(0); // Mastra's LibSQL client keeps the loop alive
