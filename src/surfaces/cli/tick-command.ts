/**
 * `agentdeck tick [project]` (also `service tick`): wake the sleeping workflow threads that
 * are due now, for a deployment that prefers an external scheduler (cron) to the server's own
 * timers. It opens the project's deck on the configured stores (the workflows' code is needed
 * to play what comes after the wake-up), ticks once, prints what became of each thread, and
 * closes. Several ticks at once (or a server's timers) never wake a thread twice.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import { InterruptResult } from '../../core/interrupt-result.js';
import { openProjectDeck } from './project-deck.js';

const USAGE = (program: string) => `Usage: ${program} tick [project] [--now ISO-TIME]

Wake the sleeping workflow threads of a project that are due (project: else ./.agentdeck
when it holds one, else the project agentdeck serve serves on this event store), on the stores SERVICE_EVENTS and SERVICE_CHECKPOINT name, and print what became of each.
A served deck (agentdeck serve) already wakes them at their time by itself.`;

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${USAGE(program)}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE(program));
    return 0;
  }
  try {
    // No background work: it plays the threads due now, nothing else; the MCP servers start
    // only if one of them plays an agent that uses one.
    await using project = await openProjectDeck({
      project: parsed.positionals[0],
      program,
      pass: `the project directory (${program} tick DIR)`,
    });
    const outcomes = await project.deck.tick(parsed.values.now);
    if (outcomes.length === 0) console.log('nothing due');
    for (const { workflow, threadId, runId, result, error } of outcomes) {
      const what =
        error !== null
          ? `failed: ${error}`
          : result instanceof InterruptResult
            ? 'waiting again'
            : 'completed';
      console.log(`${workflow} thread ${threadId}${runId ? ` (run ${runId})` : ''}: ${what}`);
    }
    return outcomes.some((outcome) => outcome.error !== null) ? 1 : 0;
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  }
}

function parse(argv: readonly string[]) {
  const [command, ...rest] = argv;
  if (command !== 'tick') throw new Error(`expected 'tick', got '${command ?? ''}'`);
  return parseArgs({
    args: rest,
    allowPositionals: true,
    options: { now: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}
