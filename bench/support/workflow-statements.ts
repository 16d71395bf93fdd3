/**
 * `bench:workflow`'s statement count on Postgres: for each peer of the Postgres phase (raw
 * LangGraph on `PostgresSaver`, the deck, Mastra on `@mastra/pg`), a run and a cycle, one at
 * a time and 16 at once, the round trips per iteration counted exactly (pg-statements.ts), and
 * a `SELECT 1` round trip and a committed one-row `INSERT` timed in the same process, to say
 * how much of an iteration's time is waiting on the server.
 */
import pg from 'pg';
import { countStatements, type StatementCount } from './pg-statements.js';
import { median } from './report.js';
import { CASES, type Case } from './workflow-cases.js';
import { type MastraEngines, runBlock } from './workflow-iterations.js';
import { openPhase } from './workflow-phases.js';

export interface StatementRow {
  test: Case;
  iterations: number;
  counted: StatementCount;
  /** Calls made meanwhile by no iteration (the deck's heartbeat and sweeps, say). */
  background: StatementCount;
}

/** Iterations counted per case (and, before them, a few run uncounted: first-use setup). */
const COUNTED = 32;
const SETTLE_MS = 250;

/** The cases counted: the three peers of the Postgres phase, zod state. */
export const COUNTED_CASES = CASES.filter(
  (c) => c.phase === 'postgres' && c.role !== 'other' && !c.state,
);

export async function countWorkflowStatements(
  where: { dir: string; postgresUrl: string },
  mastra: MastraEngines,
): Promise<StatementRow[]> {
  const { resources, close } = await openPhase('postgres', where, mastra);
  const rows: StatementRow[] = [];
  try {
    for (const [index, test] of COUNTED_CASES.entries()) {
      const iterate = test.iterate({ ...resources, prefix: `${resources.prefix}n${index}-` });
      const iterations = COUNTED * Math.min(test.concurrency, 4);
      await runBlock(iterate, 0, test.concurrency, test.concurrency);
      // What the warm-up set going (a chain of notices, say) ends before counting starts.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const { counted, background } = await countStatements(async () => {
        const done = await runBlock(iterate, test.concurrency, iterations, test.concurrency);
        if (done !== iterations) throw new Error(`counted ${done} of ${iterations} iterations`);
      }, SETTLE_MS);
      rows.push({ test, iterations, counted, background });
    }
  } finally {
    await close();
  }
  return rows;
}

/** What waiting on the server costs, timed in this process: medians, in ms. */
export interface ServerTimes {
  /** A `SELECT 1` round trip. */
  selectOneMs: number;
  /** A one-row `INSERT` committed on its own (a round trip and a WAL flush). */
  commitMs: number;
}

/** Time `SELECT 1` and a committed one-row `INSERT`, alternating, on one connection. */
export async function serverTimes(postgresUrl: string, times = 200): Promise<ServerTimes> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  const timed = async (sql: string, values: unknown[] = []) => {
    const started = performance.now();
    await client.query(sql, values);
    return performance.now() - started;
  };
  try {
    await client.query('CREATE TABLE IF NOT EXISTS bench_commit_probe (n int)');
    const selects: number[] = [];
    const commits: number[] = [];
    for (let i = 0; i < times; i += 1) {
      selects.push(await timed('SELECT 1'));
      commits.push(await timed('INSERT INTO bench_commit_probe (n) VALUES ($1)', [i]));
    }
    return { selectOneMs: median(selects), commitMs: median(commits) };
  } finally {
    await client.end();
  }
}

/** Each counted case's calls per iteration by statement kind, most first, for the console. */
export function printStatementKinds(rows: StatementRow[]): void {
  const kinds = (count: StatementCount, per: number) =>
    [...count.byKind]
      .sort((a, b) => b[1] - a[1])
      .map(([kind, calls]) => `  ${(calls / per).toFixed(2).padStart(6)}  ${kind}`);
  for (const { test, iterations, counted, background } of rows) {
    const commits = (counted.writeCommits / iterations).toFixed(2);
    console.log(`\n${test.group}: ${test.name} (${iterations} iterations; per iteration:)`);
    console.log(`  ${(counted.calls / iterations).toFixed(2).padStart(6)}  round trips`);
    console.log(`  ${commits.padStart(6)}  commits that write`);
    console.log(kinds(counted, iterations).join('\n'));
    if (background.calls > 0) {
      console.log(`  meanwhile by no iteration (in all, not per iteration):`);
      console.log(kinds(background, 1).join('\n'));
    }
  }
}
