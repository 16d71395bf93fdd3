/**
 * `bench:workflow`'s report: the table of cases, the goals line by line (each backend against
 * its own kind: the deck against raw LangGraph on the same checkpointer and against Mastra on
 * the same kind of store), the extra readings, and the Postgres round-trip count; printed and
 * written to its section of bench/RESULTS.md.
 */
import { machineLine, median, table, writeSection } from './report.js';
import { CASES, type Case, type Group, type Phase } from './workflow-cases.js';
import type { ServerTimes, StatementRow } from './workflow-statements.js';

export interface Sample {
  msPerIteration: number;
  cpuMsPerIteration: number;
}

export interface Settings {
  rounds: number;
  runs: number;
  caseBudgetMs: number;
  blocks: number;
}

const GOALS = {
  /** The deck's run time over raw LangGraph's on the same checkpointer, at most. */
  runVersusRaw: 1.2,
  /** The deck's cycle time over raw LangGraph's on the same checkpointer, at most. */
  cycleVersusRaw: 1.25,
  /** The deck's throughput over Mastra's on the same kind of store, one at a time: at least. */
  versusMastra: 1,
  /** The deck app's requests/s over the hand-written route's, at least. */
  httpVersusHono: 0.9,
};

const ms = (n: number) => n.toFixed(2);
const x = (ratio: number) => `${ratio.toFixed(2)}x`;
const perSecond = (msPer: number) => Math.round(1000 / msPer).toLocaleString('en-US');
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const MASTRA_STORE = { sqlite: 'Mastra on a LibSQL file', postgres: 'Mastra on `@mastra/pg`' };

export function report(input: {
  samples: Map<Case, Sample[]>;
  statements: StatementRow[];
  server: ServerTimes;
  load: string[];
  settings: Settings;
}): void {
  const { samples, statements, server, load, settings } = input;
  const wallOf = (test: Case) => samples.get(test)?.map((s) => s.msPerIteration) ?? [];
  // Mastra has one way to state its schemas; the deck and raw LangGraph two (`Case.state`).
  const peer = (test: Case, role: Case['role']) =>
    CASES.find(
      (c) =>
        c.role === role &&
        c.group === test.group &&
        c.phase === test.phase &&
        c.concurrency === test.concurrency &&
        (role === 'mastra' || c.state === test.state),
    );
  /** Per round: this case's time over `other`'s, measured in the same phase of the same round. */
  const timeRatio = (test: Case, other: Case | undefined) => {
    if (!other) return Number.NaN;
    const base = wallOf(other);
    return median(wallOf(test).map((v, i) => v / (base[i] ?? Number.NaN)));
  };
  const rows = CASES.map((test) => {
    const wall = wallOf(test);
    const raw = peer(test, 'raw');
    const mastra = peer(test, 'mastra');
    return [
      `${test.group}: ${test.name}`,
      `**${ms(median(wall))}**`,
      `${ms(Math.min(...wall))} – ${ms(Math.max(...wall))}`,
      perSecond(median(wall)),
      ms(median(samples.get(test)?.map((s) => s.cpuMsPerIteration) ?? [])),
      test.role === 'raw' || !raw ? '' : x(timeRatio(test, raw)),
      // Throughput against Mastra's: its time over this case's.
      test.role === 'mastra' || !mastra ? '' : x(1 / timeRatio(test, mastra)),
    ];
  });
  for (const row of rows) console.log(row.join(' | '));

  const subject = (group: Group, phase: Phase, concurrency = 1, state?: 'fields') =>
    CASES.find(
      (c) =>
        c.role === 'deck' &&
        c.group === group &&
        c.phase === phase &&
        c.concurrency === concurrency &&
        c.state === state,
    ) as Case;
  let met = 0;
  let goals = 0;
  const judge = (ok: boolean) => {
    goals += 1;
    if (ok) met += 1;
    return verdict(ok);
  };
  /** A goal line: the deck's run or cycle against raw LangGraph and Mastra, same kind of store. */
  const goalLine = (group: 'run' | 'cycle', phase: 'sqlite' | 'postgres', concurrency: number) => {
    const test = subject(group, phase, concurrency);
    const vsRaw = timeRatio(test, peer(test, 'raw'));
    const rawGoal = group === 'run' ? GOALS.runVersusRaw : GOALS.cycleVersusRaw;
    const vsMastra = 1 / timeRatio(test, peer(test, 'mastra'));
    const together = concurrency > 1;
    const mastraOk = together ? vsMastra > GOALS.versusMastra : vsMastra >= GOALS.versusMastra;
    const unit = group === 'run' ? 'runs/s' : 'cycles/s';
    return (
      `- ${phase === 'sqlite' ? 'SQLite' : 'Postgres'}, ${group === 'run' ? '3-node run' : 'interrupt + answer cycle'}, ` +
      `${together ? `${concurrency} at once` : 'one at a time'}: ${ms(median(wallOf(test)))} ms ` +
      `(${perSecond(median(wallOf(test)))} ${unit}); ${x(vsRaw)} raw LangGraph's time ` +
      `(at most ${x(rawGoal)}: ${judge(vsRaw <= rawGoal)}); ${x(vsMastra)} the ${unit} of ` +
      `${MASTRA_STORE[phase]} (${together ? 'above' : 'at least'} ${x(GOALS.versusMastra)}: ${judge(mastraOk)}).`
    );
  };
  const goalLines = (['sqlite', 'postgres'] as const).flatMap((phase) =>
    (['run', 'cycle'] as const).flatMap((group) =>
      [1, 16].map((concurrency) => goalLine(group, phase, concurrency)),
    ),
  );
  const fieldsLine = (group: 'run' | 'cycle', phase: 'sqlite' | 'postgres') => {
    const test = subject(group, phase, 1, 'fields');
    const unit = group === 'run' ? 'runs/s' : 'cycles/s';
    return (
      `- ${phase === 'sqlite' ? 'SQLite' : 'Postgres'}, ${group === 'run' ? '3-node run' : 'cycle'}: ` +
      `${ms(median(wallOf(test)))} ms, ${x(timeRatio(test, peer(test, 'raw')))} raw LangGraph's time ` +
      `with the same state, ${x(1 / timeRatio(test, peer(test, 'mastra')))} the ${unit} of ${MASTRA_STORE[phase]}.`
    );
  };
  const cycleDefault = () => {
    const test = subject('cycle', 'sqlite');
    const langGraphDefault = CASES.find(
      (c) => c.group === 'cycle' && c.phase === 'sqlite' && c.name.includes('LangGraph default'),
    );
    return x(timeRatio(test, langGraphDefault));
  };
  const http = (concurrency: number) => {
    const test = subject('http', 'sqlite', concurrency);
    const ratio = 1 / timeRatio(test, peer(test, 'raw'));
    return `${concurrency > 1 ? `${concurrency} at once` : 'one at a time'}: ${x(ratio)} the requests/s of the hand-written route (goal at least ${x(GOALS.httpVersusHono)}: ${verdict(ratio >= GOALS.httpVersusHono)})`;
  };
  const logInMemory = (group: Group) => {
    const test = subject(group, 'log-in-memory');
    const ratio = timeRatio(test, peer(test, 'raw'));
    return group === 'http'
      ? `${x(1 / ratio)} the route's requests/s`
      : `${x(ratio)} raw LangGraph's time`;
  };
  const floor = CASES.find((c) => c.name.includes('no checkpointer') && !c.state) as Case;
  const fieldsFloor = CASES.find((c) => c.name.includes('no checkpointer') && c.state) as Case;
  const mastraSqlite = peer(subject('run', 'sqlite'), 'mastra') as Case;
  const { rounds, runs, blocks, caseBudgetMs } = settings;

  writeSection('workflow.bench', [
    '## Durable workflows: the deck, raw LangGraph and Mastra (`npm run bench:workflow`)',
    '',
    'A 3-node workflow (three nodes in a line, each adding to a zod-typed state), each run on its',
    'own thread: `deck.run(name, input, { sessionId })` on the SQLite default (events and',
    'checkpoints in one file) and on Postgres (`SERVICE_EVENTS=postgres://...`), against the same',
    'graph compiled by hand on the same kind of checkpointer (`SqliteCheckpointer` on a file of its',
    "own, LangGraph's `PostgresSaver` in the same database) and run with `graph.invoke`, and against",
    "Mastra's workflow engine (`@mastra/core`, `createWorkflow` of the same three steps and zod",
    'schemas) on the same kind of store: in the SQLite phase its LibSQL storage on a file of its',
    'own (a `file:` URL, never `:memory:`; the bench checks after its warm-up that the file holds',
    "Mastra's runs), in the Postgres phase `@mastra/pg` (`PostgresStore` in a schema of the",
    "bench's scratch database, dropped with it), and in memory. The cycle rows run an approval",
    '(prepare -> ask, which interrupts -> finish) to its interrupt and answer it; Mastra resumes on',
    'a new handle of the stored run. The HTTP rows run the 3-node workflow not durable: `POST',
    '/workflows/{name}` of `deck.app()` against a hand-written Hono route invoking the same graph',
    'on a `MemorySaver` (dropping the thread after, as the deck does), both through `app.request()`.',
    '',
    `Each of ${rounds} rounds (after a warm-up) opens a SQLite phase, a phase with the deck's event log in`,
    'memory and a Postgres phase (one deck per process), the order reversed every other round; Mastra',
    "stays open and is measured in the SQLite and Postgres phases. A phase's",
    `cases run ${runs} iterations each in ${blocks} interleaved blocks whose order rotates (at most`,
    `${caseBudgetMs / 1000} s per case and round). "16 at once" keeps 16 runs in flight; its time is wall`,
    'time over runs. The table shows the median time per iteration over the rounds, its range, the',
    'rate, and process CPU per iteration; "vs raw" is the median of per-round time ratios against raw',
    'LangGraph (or the Hono route) in the same phase; "vs Mastra" the median per-round throughput',
    'ratio against Mastra on the phase\'s kind of store. Raw LangGraph rows use `durability: "exit"`',
    'as the deck does by default, unless they say LangGraph\'s default (`"async"`). Both SQLite',
    'engines run WAL with `synchronous = NORMAL` (Mastra sets it for its workflow storage, the deck',
    'for every file). Each 16-at-once Mastra row (runs; cycles) uses a Mastra instance and store',
    'of its own (workflow-iterations.ts says why).',
    '',
    "**Goals, each backend against its own kind** (the deck's time over raw LangGraph's on the same",
    "checkpointer; the deck's throughput over Mastra's on the same kind of store):",
    ...goalLines,
    '',
    `Goals met: ${met} of ${goals}.`,
    '',
    '**The same with the state as a LangGraph `StateSchema` of the same zod fields** (`state: new',
    'StateSchema(Counter.shape)`; LangGraph then checks updates field by field, docs/workflows.md):',
    fieldsLine('run', 'sqlite'),
    fieldsLine('run', 'postgres'),
    fieldsLine('cycle', 'sqlite'),
    '',
    `**Durabilities:** a SQLite cycle takes ${cycleDefault()} the time of raw LangGraph with its default`,
    'durability (`"async"`).',
    '',
    `**Not durable over HTTP:** ${http(1)}; ${http(16)}.`,
    '',
    "**Without the event log on disk** (a phase of its own: the deck's events in memory, its",
    'checkpoints on a SQLite file, against raw LangGraph on a `SqliteCheckpointer` and the Hono',
    `route): a 3-node run ${logInMemory('run')}, a cycle ${logInMemory('cycle')}, not durable over HTTP ` +
      `${logInMemory('http')}. What the SQLite rows add to these is what the deck's log on disk costs.`,
    '',
    `**LangGraph's floor:** raw LangGraph with no checkpointer at all takes ${ms(median(wallOf(floor)))} ms per ` +
      `3-node run, against ${ms(median(wallOf(mastraSqlite)))} ms for Mastra on a LibSQL file ` +
      `(${x(timeRatio(floor, mastraSqlite))} the time); with a \`StateSchema\` state ` +
      `${ms(median(wallOf(fieldsFloor)))} ms (${x(timeRatio(fieldsFloor, mastraSqlite))}).`,
    '',
    ...statementLines(statements, server, (test) => ({
      wall: median(wallOf(test)),
      cpu: median(samples.get(test)?.map((s) => s.cpuMsPerIteration) ?? []),
    })),
    '',
    machineLine(load),
    '',
    ...table(['case', 'ms (median)', 'range', 'per second', 'CPU ms', 'vs raw', 'vs Mastra'], rows),
  ]);
}

/** The Postgres round-trip table: per iteration, counted after the timed rounds. */
function statementLines(
  statements: StatementRow[],
  server: ServerTimes,
  timesOf: (test: Case) => { wall: number; cpu: number },
): string[] {
  const per = (n: number, iterations: number) => {
    const value = n / iterations;
    return Number.isInteger(value) ? String(value) : value.toFixed(2);
  };
  const background = statements.reduce((sum, row) => sum + row.background.calls, 0);
  return [
    '**Postgres round trips per iteration** (counted exactly after the timed rounds, in the same',
    'process: every `pg` query call charged to the iteration whose async context made it, what it',
    'wrote behind included; "SQL statements" counts the `;`-separated statements inside them;',
    '"commits that write" the transactions with an `INSERT`, `UPDATE` or `DELETE` committed,',
    'explicitly or a statement on its own, each a WAL flush with `synchronous_commit = on`; a',
    '`NOTIFY` alone writes no WAL and does not wait). Calls made meanwhile by no iteration',
    `(the deck's heartbeat and sweeps): ${background}. In the same process a \`SELECT 1\` round`,
    `trip took ${ms(server.selectOneMs)} ms and a one-row \`INSERT\` committed on its own ${ms(server.commitMs)} ms`,
    '(medians); "server wait" is the round trips and commits at those rates, one at a time (16 at',
    'once, Postgres flushes concurrent commits together, and a loaded machine adds waiting for a core),',
    "beside the iteration's median wall and CPU time from the table below.",
    '',
    ...table(
      [
        'case',
        'round trips',
        'SQL statements',
        'BEGIN/COMMIT',
        'commits that write',
        'ms (median)',
        'CPU ms',
        'server wait',
      ],
      statements.map(({ test, iterations, counted }) => {
        const { wall, cpu } = timesOf(test);
        const commits = counted.writeCommits / iterations;
        const wait =
          (counted.calls / iterations - commits) * server.selectOneMs + commits * server.commitMs;
        return [
          `${test.group}: ${test.name}`,
          `**${per(counted.calls, iterations)}**`,
          per(counted.statements, iterations),
          per(counted.transactionControl, iterations),
          per(counted.writeCommits, iterations),
          ms(wall),
          ms(cpu),
          test.concurrency > 1 ? '' : `${ms(wait)} ms`,
        ];
      }),
    ),
  ];
}
