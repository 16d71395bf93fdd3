/**
 * `agentdeck runs prune` (also `service runs prune`): retention on demand. Removes the runs
 * that ended longer ago than `--older-than`, and the checkpoints of the project's workflow
 * threads none of whose runs is left (runtime/retention.ts), then prints what it removed, or
 * with `--dry-run` what it would remove. A run that has not ended is never removed. Safe to
 * run while servers play runs on the same store, and from several places at once.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import type { EndedStatus, PruneReport } from '../../runtime/retention.js';
import { openProjectDeck } from './project-deck.js';

const USAGE = (
  program: string,
) => `Usage: ${program} runs prune --older-than AGE [--status STATUS]... [--origin NAME]
       [--project DIR] [--dry-run] [--json]

Remove the runs that ended more than AGE ago (AGE: a number and a unit, d, h, m or s, e.g.
30d or 12h) from the event store SERVICE_EVENTS names: their events, index row, control
requests and saved state. A run that is running, paused or waiting for an answer is never
removed. Only the runs of the project's agents and workflows are removed (it says how many
of other names it kept), with the checkpoints of workflow threads none of whose runs is left
(SERVICE_CHECKPOINT). The project: --project, else ./.agentdeck when it holds one, else the
project agentdeck serve serves on this event store. --status (completed, failed or
cancelled; repeatable) and --origin narrow what is removed; --dry-run removes nothing and
lists what would go. A server with SERVICE_RETENTION_DAYS set does this by itself.`;

const ENDED: readonly EndedStatus[] = ['completed', 'failed', 'cancelled'];
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/** Thrown for a bad command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${USAGE(program)}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE(program));
    return 0;
  }
  try {
    // Its catalog says which runs are whose: a workflow's threads are checked with its code.
    // Opened with no background work (a maintenance command never plays or cancels a user's
    // run), and it plays no turn, so the project's MCP servers never start.
    await using project = await openProjectDeck({ project: options.project, program });
    const report = await project.deck.prune({
      olderThanMs: options.olderThanMs,
      statuses: options.statuses,
      ...(options.origin !== undefined ? { origin: options.origin } : {}),
      dryRun: options.dryRun,
    });
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else console.log(describe(report, options.dryRun));
    return 0;
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  }
}

function describe(report: PruneReport, dryRun: boolean): string {
  const verb = dryRun ? 'would remove' : 'removed';
  const lines = report.runs.map(
    (run) => `${verb} run ${run.runId} (${run.origin}, ${run.status}, ended ${run.updatedAt})`,
  );
  for (const { workflow, threadId } of report.threads) {
    lines.push(`${verb} ${workflow} thread ${threadId} (its checkpoints)`);
  }
  lines.push(
    `${verb} ${report.runs.length} run${report.runs.length === 1 ? '' : 's'} and ` +
      `${report.threads.length} workflow thread${report.threads.length === 1 ? '' : 's'}`,
  );
  const kept = report.skipped.reduce((sum, { runs }) => sum + runs, 0);
  if (kept > 0) {
    const names = report.skipped.map(({ origin, runs }) => `${origin}: ${runs}`).join(', ');
    lines.push(
      `kept ${kept} run${kept === 1 ? '' : 's'} of names this project does not know (${names}): ` +
        "a project's deck removes only the runs of its own agents and workflows (a workflow's " +
        'threads are checked with its code); prune them with the project that has them (--project)',
    );
  }
  return lines.join('\n');
}

function parse(argv: readonly string[]): Parsed {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      'older-than': { type: 'string' },
      status: { type: 'string', multiple: true },
      origin: { type: 'string' },
      project: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (positionals.join(' ') !== 'runs prune') {
    throw new UsageError(`unexpected arguments '${positionals.slice(2).join(' ')}'`);
  }
  if (values.help) {
    return { ...NO_OPTIONS, help: true };
  }
  const age = values['older-than'];
  if (age === undefined) throw new UsageError('--older-than is required, e.g. --older-than 30d');
  const match = /^(\d+(?:\.\d+)?)([dhms])$/.exec(age.trim());
  if (!match) {
    throw new UsageError(
      `--older-than '${age}' is not an age; use a number and d, h, m or s (30d)`,
    );
  }
  const statuses = (values.status ?? []) as EndedStatus[];
  for (const status of statuses) {
    if (!ENDED.includes(status)) {
      throw new UsageError(
        `--status '${status}' is not an ended status; use completed, failed or cancelled`,
      );
    }
  }
  return {
    help: false,
    olderThanMs: Number(match[1]) * (UNIT_MS[match[2] as string] as number),
    statuses,
    origin: values.origin,
    project: values.project,
    dryRun: values['dry-run'] ?? false,
    json: values.json ?? false,
  };
}

const NO_OPTIONS: Parsed = {
  help: false,
  olderThanMs: 0,
  statuses: [],
  origin: undefined,
  project: undefined,
  dryRun: false,
  json: false,
};

interface Parsed {
  help: boolean;
  olderThanMs: number;
  statuses: EndedStatus[];
  origin: string | undefined;
  project: string | undefined;
  dryRun: boolean;
  json: boolean;
}
