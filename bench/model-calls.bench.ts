/**
 * What recording the model's requests costs an agent turn (#41): one session of 100 turns,
 * each a tool call then an answer (two model requests), the scripted model in process, the
 * embedded SQLite defaults (an SQLite event store on a file). Each turn adds four items to
 * the session, so turn 100 sends about 400 items of history twice, and records each of them
 * once (`on`: the values, once per run), as digests only (`metadata`), or not at all (`off`).
 * Reported: the median wall-clock time of `deck.run` over a window of turns around turn 1
 * and turn 100, the CPU time per turn there, and the ratio to `off`.
 *
 * Run: `npm run bench:model-calls -- [rounds]`. It rewrites its own section of
 * bench/RESULTS.md.
 */
import { z } from 'zod';
import { Agent, type ModelCallRecording, tool } from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';
import { playSessionTurns, type TurnSamples, windowMedian } from './support/session-turns.js';

const TURNS = 100;
const AT = [1, 100];
const WINDOW = 10;
const ROUNDS = Number(process.argv[2] ?? 3);
const ANSWER = 'Tuesday at 9am works; I have put it in the calendar for you.';
const SETTINGS: ModelCallRecording[] = ['off', 'metadata', 'on'];

const findSlots = tool({
  name: 'find_slots',
  description: 'Free slots on a day',
  parameters: z.object({ day: z.string() }),
  execute: ({ day }) => ({ day, slots: ['9am', '2pm'] }),
});

function measure(recordModelCalls: ModelCallRecording): Promise<TurnSamples> {
  const steps = () => [
    { toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }] },
    { text: ANSWER },
  ];
  const model = new ScriptedModel(Array.from({ length: TURNS + 1 }, steps).flat());
  const agent = new Agent({
    name: 'Booker',
    instructions: 'Book slots.',
    model,
    tools: [findSlots],
  });
  return playSessionTurns(TURNS, model, { agents: [agent], recordModelCalls });
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const results = new Map<ModelCallRecording, { wall: number[]; cpu: number[] }>();
  for (const setting of SETTINGS) {
    const samples: TurnSamples[] = [];
    for (let round = 0; round < ROUNDS; round += 1) samples.push(await measure(setting));
    results.set(setting, {
      wall: AT.map((turn) => median(samples.map((s) => windowMedian(s.wall, turn, WINDOW)))),
      cpu: AT.map((turn) => median(samples.map((s) => windowMedian(s.cpu, turn, WINDOW)))),
    });
  }
  const off = results.get('off');
  const rows = SETTINGS.map((setting) => {
    const { wall, cpu } = results.get(setting) ?? { wall: [], cpu: [] };
    const cells = AT.map((_, i) => `${(wall[i] ?? 0).toFixed(2)} (${(cpu[i] ?? 0).toFixed(2)})`);
    const ratios = AT.map((_, i) => `${((wall[i] ?? 0) / (off?.wall[i] ?? 1)).toFixed(2)}×`);
    console.log(setting, cells.join(' / '), ratios.join(' / '));
    return [`\`${setting}\``, ...cells, ...ratios];
  });
  writeSection('model-calls.bench', [
    '## Recording model calls (`npm run bench:model-calls`)',
    '',
    `One session, ${TURNS} turns of two model requests each (a tool call, then the answer),`,
    'scripted model in process, SQLite event store on a file; ms per turn, wall clock (CPU),',
    `the median of the ${WINDOW} turns ending at each, median of ${ROUNDS} rounds; then the`,
    'wall-clock ratio to `off`.',
    '',
    ...table(
      [
        'SERVICE_RECORD_MODEL_CALLS',
        ...AT.map((t) => `turn ${t}`),
        ...AT.map((t) => `turn ${t} / off`),
      ],
      rows,
    ),
    '',
    machineLine(load),
  ]);
}

await main();
