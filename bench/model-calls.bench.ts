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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent, Deck, type ModelCallRecording, tool } from '../src/index.js';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import { ScriptedModel } from '../src/testing/index.js';
import { loadAtStart, machineLine, median, table, writeSection } from './support/report.js';

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

interface Sample {
  wall: number[];
  cpu: number[];
}

async function measure(recordModelCalls: ModelCallRecording): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-bench-'));
  const steps = () => [
    { toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }] },
    { text: ANSWER },
  ];
  const model = new ScriptedModel(Array.from({ length: TURNS + 1 }, steps).flat());
  const deck = new Deck({
    eventStore: new SqliteEventStore({ path: join(dir, 'events.db') }),
    agents: [new Agent({ name: 'Booker', instructions: 'Book slots.', model, tools: [findSlots] })],
    recordModelCalls,
  });
  await deck.open();
  const wall: number[] = [];
  const cpu: number[] = [];
  try {
    await deck.run('Booker', 'warm up', { sessionId: 'warm-up' });
    for (let turn = 1; turn <= TURNS; turn += 1) {
      const cpuAt = process.cpuUsage();
      const started = performance.now();
      await deck.run('Booker', `Can we meet on day ${turn}?`, { sessionId: 'bench' });
      wall.push(performance.now() - started);
      const used = process.cpuUsage(cpuAt);
      cpu.push((used.user + used.system) / 1000);
      model.calls.length = 0; // the scripted model's own record is not the deck's cost
    }
  } finally {
    await deck.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { wall, cpu };
}

/** The median over the window of turns ending at `turn` (turn 1: turns 1 to WINDOW). */
function at(values: number[], turn: number): number {
  const end = Math.max(turn, WINDOW);
  return median(values.slice(end - WINDOW, end));
}

async function main(): Promise<void> {
  const load = loadAtStart();
  const results = new Map<ModelCallRecording, { wall: number[]; cpu: number[] }>();
  for (const setting of SETTINGS) {
    const samples: Sample[] = [];
    for (let round = 0; round < ROUNDS; round += 1) samples.push(await measure(setting));
    results.set(setting, {
      wall: AT.map((turn) => median(samples.map((s) => at(s.wall, turn)))),
      cpu: AT.map((turn) => median(samples.map((s) => at(s.cpu, turn)))),
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
