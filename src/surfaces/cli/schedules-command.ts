/**
 * `agentdeck schedules ls|pause|resume|trigger` (also `service schedules ...`): a project's
 * schedules from the command line. It opens the project's deck on the configured stores (a
 * pause or resume is kept there, so every server sharing them sees it, across restarts), does
 * one thing and closes; the servers fire the schedules. A trigger plays the run it starts in
 * this process, so the command waits for the run to come to rest (ended, or waiting for a
 * person) before it closes the deck, and its exit code says how the run ended.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import type { RunStatus } from '../../core/status.js';
import type { EventStore, RunSummary } from '../../core/store.js';
import type { Deck } from '../../deck/deck.js';
import { openProjectDeck } from './project-deck.js';

const USAGE = (program: string) => `Usage:
  ${program} schedules ls [--project DIR] [--json]
  ${program} schedules pause <name> [--project DIR]
  ${program} schedules resume <name> [--project DIR]
  ${program} schedules trigger <name> [--project DIR]

Works on the project's deck (--project, else ./.agentdeck when it holds one, else the project
agentdeck serve serves on this event store) and the stores SERVICE_EVENTS names. A
paused schedule stays paused, in every process, until resumed. trigger starts a run now and
plays it here: it prints the run's id, waits until the run ends (or waits for a person's
answer, or is paused), prints how, and exits 0 unless the run failed or was cancelled.`;

/** Where a triggered run stops playing in this process. */
const AT_REST: readonly RunStatus[] = [
  'completed',
  'failed',
  'cancelled',
  'waiting_human',
  'paused',
];
/** How often the command looks at the run it plays, in ms (the run plays in this process). */
const POLL_MS = 50;

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${USAGE(program)}`);
    return 2;
  }
  const [verb, name] = parsed.positionals;
  if (parsed.values.help || !verb) {
    console.log(USAGE(program));
    return parsed.values.help ? 0 : 2;
  }
  if (!['ls', 'pause', 'resume', 'trigger'].includes(verb)) {
    console.error(`${program}: unknown schedules command '${verb}'\n\n${USAGE(program)}`);
    return 2;
  }
  if (verb !== 'ls' && !name) {
    console.error(`${program}: schedules ${verb} needs a schedule name\n\n${USAGE(program)}`);
    return 2;
  }
  try {
    await using project = await openProjectDeck({ project: parsed.values.project, program });
    const { deck } = project;
    if (verb === 'ls') {
      const list = await deck.listSchedules();
      // The wire form of GET /schedules, so a script reads the same fields from both.
      if (parsed.values.json) {
        const { scheduleView } = await import('../http/schedules.js');
        console.log(JSON.stringify(list.map(scheduleView), null, 2));
      } else console.log(list.length === 0 ? 'no schedules' : list.map(line).join('\n'));
      return 0;
    }
    const handle = deck.scheduleHandle(name as string);
    if (verb === 'pause' || verb === 'resume') {
      await (verb === 'pause' ? handle.pause() : handle.resume());
      console.log(`schedule ${name} ${verb === 'pause' ? 'paused' : 'resumed'}`);
      return 0;
    }
    const outcome = await handle.trigger();
    if (!('started' in outcome)) {
      const run = outcome.runId ? ` (run ${outcome.runId})` : '';
      console.log(`schedule ${name} started nothing: ${outcome.skipped}${run}`);
      return 0;
    }
    console.log(`schedule ${name} started run ${outcome.started}`);
    return await reportRest(project.store, await atRest(project.store, outcome.started), program);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  }
}

/** The run once it stops playing here; it always does (the recorder writes its end). */
async function atRest(store: EventStore, runId: string): Promise<RunSummary> {
  for (;;) {
    const run = await store.getRun(runId);
    if (run && AT_REST.includes(run.status)) return run;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Print how the run came to rest; the exit code: 1 when it failed or was cancelled. */
async function reportRest(store: EventStore, run: RunSummary, program: string): Promise<number> {
  const { runId, status } = run;
  if (status === 'failed' || status === 'cancelled') {
    // Its terminal event, the last one: it says why.
    const end = (await store.read(runId, { afterSeq: run.lastSeq - 1 })).at(-1);
    const why =
      end?.kind === 'run.failed'
        ? `${end.payload.errorType}: ${end.payload.message}`
        : end?.kind === 'run.cancelled'
          ? (end.payload.reason ?? 'no reason given')
          : 'its end was not found in the log';
    console.error(`run ${runId} ${status}: ${why}`);
    return 1;
  }
  const note =
    status === 'waiting_human'
      ? ` (it waits for a person's answer: ${program} runs ls --status waiting_human)`
      : status === 'paused'
        ? ` (continue it with: ${program} runs signal ${runId} resume)`
        : '';
  console.log(`run ${runId} ${status}${note}`);
  return 0;
}

function line(s: Awaited<ReturnType<Deck['listSchedules']>>[number]): string {
  const last = s.lastRunId
    ? `last ${s.lastFire} run ${s.lastRunId} (${s.lastRunStatus})`
    : 'never fired';
  return `${s.name}  ${s.target}  ${s.recurrence} ${s.timezone}${s.paused ? '  PAUSED' : ''}  next ${s.nextFire ?? '-'}  ${last}`;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: argv.slice(1),
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
