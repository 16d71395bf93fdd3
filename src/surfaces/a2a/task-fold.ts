/**
 * A run's events folded into the A2A task it is: the codec's updates applied as an A2A client
 * applies them (a status replaces the status and its message joins the history; an artifact
 * chunk appends or replaces by artifact id), plus the user's side the codec has no update for:
 * the run's input and the answers given to it. Incremental, so the task store can keep a fold
 * and apply only the events stored since (task-store.ts). Pure: no I/O.
 */
import { type Artifact, type Message, type Task, TaskState } from '@a2a-js/sdk';
import type { Event } from '../../core/events.js';
import {
  blocksToParts,
  dataPart,
  encodeEvent,
  INITIAL_TASK_CODEC_STATE,
  type TaskCodecState,
  type TaskUpdate,
  taskIdsOf,
  userMessage,
} from './codec.js';

export class TaskFold {
  #codec: TaskCodecState = INITIAL_TASK_CODEC_STATE;
  #task: Task;
  /** The seq of the last event applied; -1 before the first. */
  lastSeq = -1;

  constructor(runId: string, contextId: string) {
    this.#task = {
      id: runId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
      artifacts: [],
      history: [],
      metadata: undefined,
    };
  }

  /** Fold `events` (a run's, in seq order, each after the last applied). */
  static of(events: readonly Event[]): TaskFold | null {
    const first = events[0];
    if (!first) return null;
    const { taskId, contextId } = taskIdsOf(first);
    const fold = new TaskFold(taskId, contextId);
    for (const event of events) fold.apply(event);
    return fold;
  }

  apply(event: Event): void {
    if (event.seq <= this.lastSeq) return; // read twice (a tail and a load overlapping): once
    this.lastSeq = event.seq;
    if (event.kind === 'run.started') {
      const input = blocksToParts(event.payload.input);
      this.#task.history.push(userMessage(`${event.runId}:input`, event, input));
    }
    if (event.kind === 'run.resumed' && event.payload.answer) {
      const answer = dataPart(event.payload.answer);
      this.#task.history.push(userMessage(`${event.runId}:${event.seq}`, event, [answer]));
    }
    const step = encodeEvent(this.#codec, event);
    this.#codec = step.state;
    for (const update of step.updates) applyUpdate(this.#task, update);
  }

  /** The codec's state after the last event: where a live follower of the task goes on from. */
  get codec(): TaskCodecState {
    return this.#codec;
  }

  /** The task now: a copy, the caller may change it. */
  task(): Task {
    return structuredClone(this.#task);
  }
}

/** Apply one update to `task` as an A2A client does. */
export function applyUpdate(task: Task, update: TaskUpdate): void {
  if (update.kind === 'statusUpdate') {
    const status = update.data.status;
    if (!status) return;
    task.status = status;
    if (status.message) addToHistory(task.history, status.message);
    return;
  }
  const { artifact, append } = update.data;
  if (!artifact) return;
  const index = task.artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  const existing: Artifact | undefined = task.artifacts[index];
  if (!existing) {
    task.artifacts.push(artifact);
  } else if (append) {
    task.artifacts[index] = { ...existing, parts: [...existing.parts, ...artifact.parts] };
  } else {
    task.artifacts[index] = artifact;
  }
}

function addToHistory(history: Message[], message: Message): void {
  if (!history.some((m) => m.messageId === message.messageId)) history.push(message);
}
