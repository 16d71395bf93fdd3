/**
 * The A2A task store of one agent, on the event log: a task is a run of that agent, read by
 * folding its events (task-fold.ts), so a task survives a restart, is the same from every
 * process on the store, and is never a second copy to keep in step. `save` keeps nothing: the
 * SDK saves its merged view of a task as events arrive, but the run's events are already
 * recorded, and the next load folds them. Folds are cached per run (the last 256 read), each
 * brought level by reading only the events after its last seq, so a streamed answer of n
 * chunks costs n small reads, not n reads of the whole run.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { idProblem } from '../../core/ids.js';
import type { RunStatus } from '../../core/status.js';
import type { RunCursor, RunSummary } from '../../core/store.js';
import type { EventLog } from '../http/served-deck.js';
import { TaskFold } from './task-fold.js';

const CACHED_FOLDS = 256;

/** A2A's state filter of `ListTasks` as the run statuses it stands for. */
const STATUSES: Partial<Record<TaskState, RunStatus>> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'pending',
  [TaskState.TASK_STATE_WORKING]: 'running',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'waiting_human',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'cancelled',
};

export class RunTaskStore implements TaskStore {
  readonly #log: () => EventLog;
  readonly #agent: string;
  readonly #folds = new Map<string, TaskFold>();

  /** `log` is read at each call: the deck's log exists only while it is open. */
  constructor(log: () => EventLog, agent: string) {
    this.#log = log;
    this.#agent = agent;
  }

  async save(_task: Task, _context: ServerCallContext): Promise<void> {
    // The run's events are the task: nothing to write (see the module comment).
  }

  async load(taskId: string, _context?: ServerCallContext): Promise<Task | undefined> {
    return (await this.fold(taskId))?.task();
  }

  /**
   * The fold of run `taskId` brought level with the log, or `null` for no run of this agent
   * by that id (another agent's run is not a task of this one).
   */
  async fold(taskId: string): Promise<TaskFold | null> {
    if (idProblem(taskId) !== null) return null;
    const log = this.#log();
    let fold: TaskFold | null | undefined = this.#folds.get(taskId);
    if (!fold) {
      const run = await log.getRun(taskId);
      if (!run || run.origin !== this.#agent) return null;
    }
    const events = await log.read(taskId, { afterSeq: fold?.lastSeq ?? -1 });
    fold ??= TaskFold.of(events);
    if (!fold) return null;
    for (const event of events) fold.apply(event);
    this.#remember(taskId, fold);
    return fold;
  }

  async list(params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    const status = STATUSES[params.status];
    const after = cursorOf(params.pageToken);
    const runs = await this.#log().listRuns({
      origin: this.#agent,
      ...(params.contextId ? { sessionId: params.contextId } : {}),
      ...(status ? { status } : {}),
      ...(after ? { after } : {}),
      // One more than a page: whether there is a next one.
      limit: pageSize + 1,
    });
    const page = runs.slice(0, pageSize);
    const tasks: Task[] = [];
    for (const run of page) {
      const task = await this.load(run.runId);
      if (task) tasks.push(task);
    }
    const last = page.at(-1);
    return {
      tasks,
      nextPageToken: runs.length > pageSize && last ? tokenOf(last) : '',
      pageSize,
      // The store does not count runs; this is the page's count (A2A allows an estimate).
      totalSize: tasks.length,
    };
  }

  #remember(taskId: string, fold: TaskFold): void {
    this.#folds.delete(taskId);
    this.#folds.set(taskId, fold);
    if (this.#folds.size > CACHED_FOLDS) {
      const oldest = this.#folds.keys().next().value;
      if (oldest !== undefined) this.#folds.delete(oldest);
    }
  }
}

/** A page token: the keyset cursor of the page's last run, as base64url JSON. */
function tokenOf(run: RunSummary): string {
  const cursor: RunCursor = { startedAt: run.startedAt, runId: run.runId };
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function cursorOf(token: string): RunCursor | null {
  if (!token) return null;
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as RunCursor;
    if (typeof value.startedAt === 'string' && typeof value.runId === 'string') return value;
  } catch {
    // not one of ours: said below
  }
  throw new RequestMalformedError(
    `pageToken '${token.slice(0, 40)}' is not one this server gave: pass the nextPageToken of the previous page, or none for the first`,
  );
}
