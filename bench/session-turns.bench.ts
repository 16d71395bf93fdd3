/**
 * What one agent turn costs the deck as its session grows: 400 turns of one session, the
 * scripted model in process (no network, an answer of a sentence), the embedded SQLite
 * defaults (an SQLite event store on a file, the in-memory SQLite session backend). Each
 * turn adds two items to the session (the message and the answer), so turn 400 starts with
 * 798 stored items. Reported: the median wall-clock time of `deck.run` over a window of
 * turns around 1, 100, 200 and 400, and the CPU time the process spent per turn there.
 * The model request's own size (what the engine copies to build it) is part of the figure,
 * so the flat case to compare with is the one with a history policy (`lastItems: 20`).
 *
 * Run: `npm run bench:session-turns` (or `npx tsx bench/session-turns.bench.ts [rounds]`).
 * It rewrites its own section of bench/RESULTS.md.
 */
import { Agent } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';
import { playSessionTurns, type TurnSamples, windowMedian } from './support/session-turns.js';

const TURNS = 400;
/** The turns reported, each as the median of the window of turns ending there. */
const AT = [1, 100, 200, 400];
const WINDOW = 10;
const ROUNDS = Number(process.argv[2] ?? 3);
const ANSWER = 'Tuesday at 9am works; I have put it in the calendar for you.';

interface Case {
  name: string;
  agent: Record<string, unknown>;
}

const CASES: Case[] = [
  { name: 'full history (the default)', agent: {} },
  { name: 'history: { lastItems: 20 }', agent: { history: { lastItems: 20 } } },
];

function measure(test: Case): Promise<TurnSamples> {
  const model = new ScriptedModel(Array.from({ length: TURNS + 1 }, () => ({ text: ANSWER })));
  const agent = new Agent({ name: 'Booker', instructions: 'Book slots.', model, ...test.agent });
  return playSessionTurns(TURNS, model, { agents: [agent] });
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const rows: string[][] = [];
  for (const test of CASES) {
    const samples: TurnSamples[] = [];
    for (let round = 0; round < ROUNDS; round += 1) samples.push(await measure(test));
    const wallAt = AT.map((turn) => median(samples.map((s) => windowMedian(s.wall, turn, WINDOW))));
    const cpuAt = AT.map((turn) => median(samples.map((s) => windowMedian(s.cpu, turn, WINDOW))));
    const ratio = (wallAt.at(-1) ?? 0) / (wallAt[0] ?? 1);
    rows.push([
      test.name,
      ...wallAt.map((ms, i) => `${ms.toFixed(2)} (${(cpuAt[i] ?? 0).toFixed(2)})`),
      `${ratio.toFixed(2)}×`,
    ]);
    console.log(test.name, wallAt.map((ms) => ms.toFixed(2)).join(' / '), `${ratio.toFixed(2)}×`);
  }
  writeSection('session-turns.bench', [
    '## Turn time by session length (`npm run bench:session-turns`)',
    '',
    `One session, ${TURNS} turns, scripted model in process; ms per turn, wall clock (CPU), the`,
    `median of the ${WINDOW} turns ending at each, median of ${ROUNDS} rounds.`,
    '',
    ...table(['case', ...AT.map((t) => `turn ${t}`), '400 / 1'], rows),
    '',
    machineLine(load),
  ]);
}

await main();
