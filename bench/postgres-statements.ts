/**
 * What a durable workflow costs the Postgres server, counted rather than timed: the queries
 * (each a round trip) and the statements they carry, of a 3-node run and of an interrupt +
 * answer cycle,
 * through the deck (events and checkpoints on Postgres) and through raw LangGraph on its
 * `PostgresSaver`. Every `pg` client's `query` is wrapped, so the deck's store, its
 * checkpointer and LangGraph's own pool are all seen. With `--sequence` it prints one
 * iteration's queries in order, which is how issue 43's write path was taken apart; with
 * `--time` it also times the cases side by side (alternating blocks) and prints the ratios.
 *
 * Run: `npx tsx bench/postgres-statements.ts [--sequence] [--time]` (Postgres on 127.0.0.1:5432,
 * database `test`). It writes the counts (and, with `--time`, the ratios) to its section of
 * bench/RESULTS.md; `bench:workflow` stays the reference for times.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Command } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { Deck, type InterruptResult } from '../src/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';
import type { Graph } from './support/workflow-iterations.js';
import {
  Approval,
  approvalGraph,
  Counter,
  DECK_WORKFLOWS,
  threeStepsGraph,
} from './support/workflow-shapes.js';

const URL = process.env.SERVICE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const ITERATIONS = 30;
const args = new Set(process.argv.slice(2));

interface Seen {
  text: string;
  start: number;
}
let seen: Seen[] | null = null;

// Every query of every pg client in the process, with when it was sent.
const original = pg.Client.prototype.query as (...a: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
  const first = a[0] as string | { text?: string };
  const text = typeof first === 'string' ? first : (first?.text ?? '?');
  seen?.push({ text, start: performance.now() });
  return original.apply(this, a);
} as typeof pg.Client.prototype.query;

/** Statements in a query: a simple query may carry several (`BEGIN; ...; COMMIT`). */
const statements = (q: Seen) => q.text.split(/;\s*\n/).filter((s) => s.trim()).length;

function describe(q: Seen): string {
  const one = q.text.replace(/\s+/g, ' ').trim();
  return `${statements(q) > 1 ? `[${statements(q)} statements] ` : ''}${one.slice(0, 110)}`;
}

const counted: string[][] = [];
const ratios: string[] = [];

async function count(name: string, body: (i: number) => Promise<void>) {
  const perIteration: { queries: number; statements: number }[] = [];
  let sample: Seen[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    seen = [];
    await body(i);
    await new Promise((resolve) => setTimeout(resolve, 5)); // NOTIFYs sent after the turn
    const queries = seen.filter((q) => !/^\s*(LISTEN|UNLISTEN)/i.test(q.text));
    seen = null;
    perIteration.push({
      queries: queries.length,
      statements: queries.reduce((n, q) => n + statements(q), 0),
    });
    if (i === ITERATIONS - 1) sample = queries;
  }
  const m = (key: 'queries' | 'statements') => median(perIteration.map((row) => row[key]));
  console.log(`${name.padEnd(28)} queries ${m('queries')}, statements ${m('statements')}`);
  counted.push([name, String(m('queries')), String(m('statements'))]);
  if (args.has('--sequence')) {
    const t0 = sample[0]?.start ?? 0;
    for (const q of sample) {
      console.log(`  +${(q.start - t0).toFixed(2).padStart(6)} ms ${describe(q)}`);
    }
  }
}

async function main() {
  process.env.SERVICE_EVENTS = URL;
  delete process.env.SERVICE_CHECKPOINT;
  const saver = PostgresSaver.fromConnString(URL);
  await saver.setup();
  const deck = await new Deck({ workflows: DECK_WORKFLOWS }).open();
  const threeSteps = threeStepsGraph(Counter).compile({ checkpointer: saver }) as unknown as Graph;
  const approval = approvalGraph(Approval).compile({ checkpointer: saver }) as unknown as Graph;
  const prefix = randomUUID().slice(0, 8);
  const exit = { durability: 'exit' as const };

  const cases: Record<string, (i: number) => Promise<void>> = {
    'run: raw PostgresSaver': async (i) => {
      const config = { configurable: { thread_id: `${prefix}-r${i}-${randomUUID()}` }, ...exit };
      await threeSteps.invoke({ n: 0 }, config);
    },
    'run: deck': async () => {
      await deck.run('three-steps', { n: 0 }, { sessionId: `${prefix}-d-${randomUUID()}` });
    },
    'cycle: raw PostgresSaver': async (i) => {
      const config = { configurable: { thread_id: `${prefix}-c${i}-${randomUUID()}` }, ...exit };
      await approval.invoke({ amount: i }, config);
      await approval.invoke(new Command({ resume: { approved: true } }), config);
    },
    'cycle: deck': async (i) => {
      const paused = await deck.run(
        'approval',
        { amount: i },
        { sessionId: `${prefix}-a-${randomUUID()}` },
      );
      await deck.answer((paused as InterruptResult).runId as string, { approved: true });
    },
  };
  for (const body of Object.values(cases)) await body(0); // warm up
  for (const [name, body] of Object.entries(cases)) await count(name, body);

  if (args.has('--time')) {
    const times: Record<string, number[]> = {};
    for (let round = 0; round < 8; round++) {
      const names = Object.keys(cases);
      if (round % 2) names.reverse();
      for (const name of names) {
        const body = cases[name] as (i: number) => Promise<void>;
        const t0 = performance.now();
        for (let i = 0; i < 40; i++) await body(i);
        const list = times[name] ?? [];
        list.push((performance.now() - t0) / 40);
        times[name] = list;
      }
    }
    const ratio = (deck: string, raw: string) =>
      median((times[deck] ?? []).map((t, round) => t / ((times[raw] ?? [])[round] ?? Number.NaN)));
    for (const [name, t] of Object.entries(times)) {
      console.log(`${name.padEnd(28)} ${median(t).toFixed(2)} ms (median of 8 rounds of 40)`);
    }
    ratios.push(
      `- a 3-node run: ${ratio('run: deck', 'run: raw PostgresSaver').toFixed(2)}x raw LangGraph's time;`,
      `- an interrupt + answer cycle: ${ratio('cycle: deck', 'cycle: raw PostgresSaver').toFixed(2)}x.`,
    );
    for (const line of ratios) console.log(line);
  }
  await deck.close();
  await saver.end();
}

function report(load: string[]): void {
  writeSection('postgres-statements', [
    '## Queries per workflow run on Postgres (`npx tsx bench/postgres-statements.ts`)',
    '',
    `Every \`pg\` query of the process counted over ${ITERATIONS} iterations per case (the median`,
    'shown): the deck with its events and checkpoints on Postgres against raw LangGraph on',
    '`PostgresSaver` (durability `exit`). A query is a round trip; a simple query may carry',
    'several statements. "Waits in a row" counts the spans with a query out, NOTIFYs left out:',
    'the round trips the caller waited for one after another.',
    '',
    ...table(['case', 'queries', 'statements'], counted),
    ...(ratios.length > 0
      ? ['', 'Timed side by side (8 rounds of 40, alternating blocks; wall time):', ...ratios]
      : []),
    '',
    machineLine(load),
  ]);
}

const load = loadAtStart();
await main();
report(load);
