/**
 * `agentdeck runs ...` (also `service runs ...`): the run-control command (SPEC.md point 7). It works on the shared
 * store (`SERVICE_EVENTS`; by default `./.agentdeck/state.db`, the file a server in the same
 * directory writes), so it reaches a run that another process plays, with no other
 * configuration. It writes requests and reads runs; it never starts or renders a
 * conversation.
 *
 *   service runs signal <run_id> {pause,cancel,resume} [--reason TEXT]
 *   service runs show <run_id> [--json]
 *   service runs ls [--status S] [--origin NAME] [--session ID] [--limit N] [--json]
 *   service runs approve|reject <run_id> [...]  (approve-command.ts)
 *   service runs prune --older-than AGE [...]   (prune-command.ts)
 *   service runs vacuum
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import type { ControlVerb } from '../../core/event-kinds.js';
import { toWire } from '../../core/events.js';
import { RUN_STATUSES, type RunStatus, TERMINAL_STATUSES } from '../../core/status.js';
import {
  type ControlRequest,
  canSearchRunIds,
  type EventStore,
  type RunSummary,
} from '../../core/store.js';
import { requestControl } from '../../runtime/control/requests.js';
import { openEventStore } from '../../stores/events-url.js';
import { SqliteEventStore } from '../../stores/sqlite/events.js';
import { servingLockPath, withNoServer } from '../../stores/sqlite/serving-lock.js';
import { eventLine, runHeader, runsTable, runToWire } from './runs-format.js';

const USAGE = `Usage:
  service runs signal <run_id> {pause,cancel,resume} [--reason TEXT]
  service runs show <run_id or its start> [--json]
  service runs ls [--status STATUS] [--origin NAME] [--session ID] [--limit N] [--json]
  service runs approve <run_id> [--project DIR] [--json]
  service runs reject <run_id> [--reason TEXT] [--project DIR] [--json]
  service runs prune --older-than AGE [--status STATUS] [--origin NAME] [--project DIR] [--dry-run] [--json]
  service runs vacuum

Works on the event store SERVICE_EVENTS names (default: ./.agentdeck/state.db), shared
with the servers that play the runs. \`signal\` records a request; it does not change the
run's status itself. The process playing the run acts on pause and cancel within
SERVICE_RUNTIME_CONTROL_POLL_MS (default 200 ms): a pause at the run's next safe point, a
cancel at once. A cancel of a paused or waiting run ends it here. A resume of a paused run
is played by a server open on the same store, within about 3 seconds, with no context.
\`vacuum\` rewrites an SQLite file whole: it refuses while an agentdeck serve serves on it.`;

const VERBS: readonly ControlVerb[] = ['pause', 'cancel', 'resume'];
const STATUSES: readonly RunStatus[] = RUN_STATUSES;

/** Thrown for a bad command line: printed with the usage, exit code 2. */
class UsageError extends Error {}

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  if (argv[0] === 'runs' && (argv[1] === 'approve' || argv[1] === 'reject')) {
    // The answered turn goes on here: it opens the project's deck, not only the store.
    const approve = await import('./approve-command.js');
    return approve.main(argv, program);
  }
  if (argv[0] === 'runs' && argv[1] === 'prune') {
    // It opens the project's deck (workflow checkpoints go too), not only the store.
    const prune = await import('./prune-command.js');
    return prune.main(argv, program);
  }
  const usage = USAGE.replaceAll('service runs', `${program} runs`);
  let command: ReturnType<typeof parse>;
  try {
    command = parse(argv);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${usage}`);
    return 2;
  }
  if (command.values.help || command.positionals.length === 0) {
    console.log(usage);
    return command.values.help ? 0 : 2;
  }
  let store: EventStore | null = null;
  try {
    const [group, action, ...rest] = command.positionals;
    if (group !== 'runs') throw new UsageError(`unknown command '${group}'; the command is 'runs'`);
    store = openEventStore(process.env.SERVICE_EVENTS);
    switch (action) {
      case 'signal':
        return await signal(store, rest, command.values.reason ?? null, program);
      case 'show':
        return await show(store, rest, command.values.json ?? false, program);
      case 'ls':
        return await list(store, command.values);
      case 'vacuum':
        return await vacuum(store, program);
      default:
        throw new UsageError(
          `unknown action '${action ?? ''}'; use signal, show, ls, approve, reject, prune or vacuum`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${program}: ${error.message}\n\n${usage}`);
      return 2;
    }
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  } finally {
    await store?.close().catch(() => undefined);
  }
}

async function signal(
  store: EventStore,
  args: string[],
  reason: string | null,
  program: string,
): Promise<number> {
  const [runId, verb] = args;
  if (!runId || !verb) throw new UsageError('signal needs a run id and a verb');
  if (!VERBS.includes(verb as ControlVerb)) {
    throw new UsageError(`unknown verb '${verb}'; use pause, cancel or resume`);
  }
  const ended = await store.getRun(runId);
  if (ended && TERMINAL_STATUSES.includes(ended.status)) {
    // A request would be kept and do nothing: say so rather than report it recorded.
    console.error(
      `${program}: run ${runId} has ended (${ended.status}); there is nothing to ${verb}, and no request was recorded`,
    );
    return 1;
  }
  const request = await requestControl(store, null, runId, verb as ControlVerb, reason);
  const run = await store.getRun(runId);
  console.log(
    `recorded ${request.verb} request ${request.requestId} for run ${runId} (${run?.origin}, status ${run?.status})`,
  );
  if (run?.status === 'paused' && request.verb === 'resume') {
    console.log('a server open on this store continues it within about 3 seconds');
  }
  return 0;
}

async function show(
  store: EventStore,
  args: string[],
  asJson: boolean,
  program: string,
): Promise<number> {
  const [given] = args;
  if (!given) throw new UsageError('show needs a run id');
  const run = await runNamed(store, given, program);
  if (!run) return 1;
  const { runId } = run;
  const events = await store.read(runId);
  if (asJson) {
    console.log(JSON.stringify({ run: runToWire(run), events: events.map(toWire) }, null, 2));
  } else {
    const waiting = run.status === 'paused' ? await unplayedResume(store, runId) : null;
    console.log(`${runHeader(run, waiting)}\n\n${events.map(eventLine).join('\n')}`);
  }
  return 0;
}

/** Most ids an ambiguous prefix lists. */
const SHOWN_MATCHES = 10;

/**
 * The run `given` names: its id, or the start of exactly one run's id. Prints why not (none,
 * or which ids it could be) and returns `null`.
 */
async function runNamed(
  store: EventStore,
  given: string,
  program: string,
): Promise<RunSummary | null> {
  const exact = await store.getRun(given);
  if (exact) return exact;
  const ids = canSearchRunIds(store)
    ? await store.runIdsStartingWith(given, SHOWN_MATCHES + 1)
    : [];
  if (ids.length === 1) return store.getRun(ids[0] as string);
  if (ids.length === 0) {
    console.error(
      `${program}: no run '${given}' in the event store; list runs with: ${program} runs ls`,
    );
  } else {
    const more = ids.length > SHOWN_MATCHES ? ', and more' : '';
    console.error(
      `${program}: '${given}' is the start of several run ids (${ids.slice(0, SHOWN_MATCHES).join(', ')}${more}); give more of the id`,
    );
  }
  return null;
}

/** The resume asked of a paused run that no server has played yet, if any. */
async function unplayedResume(store: EventStore, runId: string): Promise<ControlRequest | null> {
  const last = (await store.readControl(runId)).at(-1);
  return last?.verb === 'resume' ? last : null;
}

async function list(
  store: EventStore,
  values: { status?: string; origin?: string; session?: string; limit?: string; json?: boolean },
): Promise<number> {
  if (values.status !== undefined && !STATUSES.includes(values.status as RunStatus)) {
    throw new UsageError(`unknown status '${values.status}'; use one of ${STATUSES.join(', ')}`);
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError(`--limit must be a positive whole number, got '${values.limit}'`);
  }
  const runs = await store.listRuns({
    ...(values.status !== undefined ? { status: values.status as RunStatus } : {}),
    ...(values.origin !== undefined ? { origin: values.origin } : {}),
    ...(values.session !== undefined ? { sessionId: values.session } : {}),
    limit,
  });
  console.log(values.json ? JSON.stringify(runs.map(runToWire), null, 2) : runsTable(runs));
  return 0;
}

/**
 * Rewrite an SQLite file so pruning gives its space back: once, for a file too large to be
 * converted when a store opened it (stores/sqlite/vacuum.ts). Refused while a server serves
 * on the file (stores/sqlite/serving-lock.ts): it holds the write lock for the whole rewrite.
 */
async function vacuum(store: EventStore, program: string): Promise<number> {
  if (!(store instanceof SqliteEventStore)) {
    console.log(
      'nothing to do: only an SQLite file is vacuumed here (Postgres gives space back by its own autovacuum)',
    );
    return 0;
  }
  const vacuumed = await withNoServer(store.path, () => store.vacuum());
  if (vacuumed === null) {
    console.error(
      `${program}: a server is serving on ${store.path} (an agentdeck serve holds ${servingLockPath(store.path)}), so nothing was done: ` +
        "vacuum rewrites the whole file and holds its write lock meanwhile, and the server's writes would wait and fail. " +
        `Stop the server, run ${program} runs vacuum, then start the server again`,
    );
    return 1;
  }
  const { bytesBefore, bytesAfter } = vacuumed;
  console.log(`vacuumed ${store.path}: ${bytesBefore} bytes before, ${bytesAfter} after`);
  return 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      reason: { type: 'string' },
      json: { type: 'boolean' },
      status: { type: 'string' },
      origin: { type: 'string' },
      session: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
