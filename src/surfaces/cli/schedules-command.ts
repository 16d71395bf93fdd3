/**
 * `agentdeck schedules ls|pause|resume|trigger` (also `service schedules ...`): a project's
 * schedules from the command line. It opens the project's deck on the configured stores (a
 * pause or resume is kept there, so every server sharing them sees it, across restarts), does
 * one thing and closes; the servers fire the schedules.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import { Deck } from '../../deck/deck.js';

const USAGE = (program: string) => `Usage:
  ${program} schedules ls [--project DIR] [--json]
  ${program} schedules pause <name> [--project DIR]
  ${program} schedules resume <name> [--project DIR]
  ${program} schedules trigger <name> [--project DIR]

Works on the project's deck (default ./.agentdeck) and the stores SERVICE_EVENTS names. A
paused schedule stays paused, in every process, until resumed; trigger starts a run now.`;

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
  if (verb !== 'ls' && !name) {
    console.error(`${program}: schedules ${verb} needs a schedule name\n\n${USAGE(program)}`);
    return 2;
  }
  try {
    await using deck = await Deck.fromProject(parsed.values.project ?? '.agentdeck');
    // No background work (the servers fire the schedules); the MCP servers start only if a
    // triggered run plays an agent that uses one.
    await deck.open({ background: false, mcpStart: 'first-use' });
    if (verb === 'ls') {
      const list = await deck.listSchedules();
      if (parsed.values.json) console.log(JSON.stringify(list, null, 2));
      else console.log(list.length === 0 ? 'no schedules' : list.map(line).join('\n'));
      return 0;
    }
    const handle = deck.scheduleHandle(name as string);
    if (verb === 'pause' || verb === 'resume') {
      await (verb === 'pause' ? handle.pause() : handle.resume());
      console.log(`schedule ${name} ${verb === 'pause' ? 'paused' : 'resumed'}`);
      return 0;
    }
    if (verb === 'trigger') {
      const outcome = await handle.trigger();
      console.log(
        'started' in outcome
          ? `schedule ${name} started run ${outcome.started}`
          : `schedule ${name} started nothing: ${outcome.skipped}${outcome.runId ? ` (run ${outcome.runId})` : ''}`,
      );
      return 0;
    }
    console.error(`${program}: unknown schedules command '${verb}'\n\n${USAGE(program)}`);
    return 2;
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  }
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
