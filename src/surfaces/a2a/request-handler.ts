/**
 * The A2A request handler of one agent: the SDK's `DefaultRequestHandler` (task bookkeeping,
 * blocking and streaming sends, history lengths, the JSON-RPC method table behind it) with the
 * parts that must be the deck's. A send starts the run (or, on a task that waits for
 * approval, answers it) before the SDK's executor runs, and awaits the run's first event, so a
 * busy session, a malformed answer or a backend outage is an error of the request, never a
 * task that failed; the executor (executor.ts) then follows that run. Cancel is the deck's
 * cancel, waited for in the log; subscribe reads the task from the log, then follows the log.
 * Tasks are runs of this agent, read from the event log (task-store.ts). A backend outage is
 * kept on the call's context for the HTTP glue, which answers 503 with Retry-After as the
 * other routes do.
 */
import { randomUUID } from 'node:crypto';
import {
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import {
  ConflictError,
  errorMessage,
  InvalidInputError,
  isBackendOutage,
  NotFoundError,
} from '../../core/errors.js';
import type { Event } from '../../core/events.js';
import { idProblem } from '../../core/ids.js';
import type { HttpDeps } from '../http/deps.js';
import { runEventTail } from '../http/run-events.js';
import { encodeEvent, type TaskUpdate } from './codec.js';
import { handOver, RunExecutor, releaseUntaken, stopsAt } from './executor.js';
import { TaskFold } from './task-fold.js';
import { RunTaskStore } from './task-store.js';

/** How long a cancel waits for the run to record its end before answering with the task as it is. */
const CANCEL_WAIT_MS = 10_000;

const TERMINAL = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

const RUN_CONTEXT = 'agentdeck.a2a.runContext';
const LEFT = 'agentdeck.a2a.left';
const OUTAGE = 'agentdeck.a2a.outage';

/**
 * Give the calls of this request the run options of the HTTP request (its context), and the
 * signal of its client going away (a subscription then stops following the log).
 */
export function setRunContext(
  context: ServerCallContext,
  runContext: { context?: unknown },
  left: AbortSignal,
): void {
  context.state.set(RUN_CONTEXT, runContext);
  context.state.set(LEFT, left);
}

/** The backend outage a call of this request met, for a 503; `undefined` for none. */
export function outageOf(context: ServerCallContext): unknown {
  return context.state.get(OUTAGE);
}

export class RunRequestHandler extends DefaultRequestHandler {
  readonly #deps: HttpDeps;
  readonly #agent: string;
  readonly #store: RunTaskStore;

  constructor(deps: HttpDeps, agent: string, card: AgentCard) {
    const store = new RunTaskStore(() => deps.eventLog(), agent);
    // No bus outlives its executor: a later call reads the log, not an in-memory bus.
    const options = { keepBusAliveStates: [] };
    super(
      card,
      store,
      new RunExecutor(),
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      options,
    );
    this.#deps = deps;
    this.#agent = agent;
    this.#store = store;
  }

  override sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    return this.#guard(context, async () => {
      // Nobody reads a blocking send's text as it comes: the model may answer in whole replies.
      const live = params.configuration?.returnImmediately === true;
      await this.#begin(params, context, live);
      try {
        return await super.sendMessage(params, context);
      } finally {
        releaseUntaken(context);
      }
    });
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    await this.#guard(context, () => this.#begin(params, context, true));
    try {
      yield* super.sendMessageStream(params, context);
    } finally {
      releaseUntaken(context);
    }
  }

  override getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#guard(context, async () => {
      await this.#taskFold(params.id); // an unknown id said our way (the fold is cached for the read)
      return super.getTask(params, context);
    });
  }

  override listTasks(
    params: ListTasksRequest,
    context: ServerCallContext,
  ): Promise<ListTasksResponse> {
    return this.#guard(context, () => super.listTasks(params, context));
  }

  override cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#guard(context, async () => {
      const fold = await this.#taskFold(params.id);
      const task = fold.task();
      const state = task.status?.state;
      if (state === TaskState.TASK_STATE_CANCELED) return task;
      if (state !== undefined && TERMINAL.includes(state)) {
        throw new TaskNotCancelableError(
          `task '${params.id}' has already ended (${TaskState[state]}): only a working or input-required task can be cancelled`,
        );
      }
      const reason = params.metadata?.reason;
      await this.#deps.deck.cancel(params.id, {
        reason: typeof reason === 'string' ? reason : null,
      });
      // The run records its end at its next safe point (at once when it waits): wait for it, bounded.
      const signal = AbortSignal.timeout(CANCEL_WAIT_MS);
      const tail = runEventTail(this.#deps.eventLog(), params.id, {
        afterSeq: fold.lastSeq,
        follow: true,
        signal,
      });
      for await (const event of tail)
        if (event && stopsAt(event) && event.kind !== 'run.interrupted') break;
      return (await this.#taskFold(params.id)).task();
    });
  }

  override async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const fold = await this.#guard(context, () => this.#taskFold(params.id));
    const task = fold.task();
    const state = task.status?.state;
    if (state !== undefined && TERMINAL.includes(state)) {
      throw new UnsupportedOperationError(
        `task '${params.id}' has ended (${TaskState[state]}): read it with GetTask`,
      );
    }
    yield { payload: { $case: 'task', value: task } };
    const stop = new AbortController();
    const left = context.state.get(LEFT) as AbortSignal | undefined;
    let codec = fold.codec;
    const tail = runEventTail(this.#deps.eventLog(), params.id, {
      afterSeq: fold.lastSeq,
      follow: true,
      signal: left ? AbortSignal.any([stop.signal, left]) : stop.signal,
    });
    try {
      for await (const event of tail) {
        if (!event) continue;
        const step = encodeEvent(codec, event);
        codec = step.state;
        for (const update of step.updates) yield streamResponse(update);
        if (stopsAt(event)) return;
      }
    } finally {
      stop.abort();
    }
  }

  /** Start the run a message asks for, or answer the task it names; hand it to the executor. */
  async #begin(
    params: SendMessageRequest,
    context: ServerCallContext,
    live: boolean,
  ): Promise<void> {
    const message = params.message;
    if (!message)
      throw new RequestMalformedError('params.message is required: the message to send');
    if (!message.messageId) {
      throw new RequestMalformedError(
        'message.messageId is required: an id the client chose for this message',
      );
    }
    if (message.taskId) return this.#answer(message, context);
    const text = textOf(message, this.#agent);
    // A client that sends no context gets one, so that sending the next message with the
    // returned contextId goes on with the same conversation.
    const sessionId = message.contextId || randomUUID();
    const problem = idProblem(sessionId);
    if (problem) throw new RequestMalformedError(`message.contextId ${problem}`);
    // A session backend that is down would fail the run after it began (a failed task): ask it
    // first, so that the request is the usual 503 with Retry-After, as the chat route's stream.
    await this.#deps.sessionsReachable();
    const runContext = (context.state.get(RUN_CONTEXT) ?? {}) as { context?: unknown };
    const options = { sessionId, ...runContext };
    const events = live
      ? this.#deps.deck.stream(this.#agent, text, options)
      : this.#deps.streamForResult(this.#agent, text, options);
    const first = await events.next(); // the session's claim is decided here
    if (first.done) throw new Error(`the run of agent '${this.#agent}' recorded nothing`);
    const fold = TaskFold.of([first.value]);
    if (!fold) throw new Error(`the run of agent '${this.#agent}' recorded nothing`);
    handOver(context, { task: fold.task(), codec: fold.codec, rest: events, tail: false });
  }

  /** Answer the held tool call of the task `message` names; the task goes on. */
  async #answer(message: Message, context: ServerCallContext): Promise<void> {
    const fold = await this.#taskFold(message.taskId);
    const state = fold.task().status?.state;
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      const name = state === undefined ? 'unknown' : TaskState[state];
      throw new UnsupportedOperationError(
        `task '${message.taskId}' is not waiting for input (it is ${name}): send a message without taskId ` +
          'to start a new task (the same contextId goes on with the conversation)',
      );
    }
    // What the SDK would refuse after the answer took effect, refused before it does.
    const contextId = fold.task().contextId;
    if (message.contextId && message.contextId !== contextId) {
      throw new RequestMalformedError(
        `message.contextId '${message.contextId}' is not the context of task '${message.taskId}' ('${contextId}'): send the task's own, or none`,
      );
    }
    const answer = answerOf(message);
    const runContext = (context.state.get(RUN_CONTEXT) ?? {}) as { context?: unknown };
    const stop = new AbortController();
    const tail = runEventTail(this.#deps.eventLog(), message.taskId, {
      afterSeq: fold.lastSeq,
      follow: true,
      signal: stop.signal,
    });
    const answered = this.#deps.deck.answer(message.taskId, answer, runContext);
    // Accepted once the run records its next event (run.resumed), or the answer played through.
    let first: Event | null = null;
    try {
      const next = async (): Promise<Event | null> => {
        for (;;) {
          const step = await tail.next();
          if (step.done) return null;
          if (step.value) return step.value;
        }
      };
      const pending = next();
      first = await Promise.race([pending, answered.then(() => pending)]);
    } catch (error) {
      stop.abort();
      await tail.return();
      throw error;
    }
    answered.catch((error: unknown) =>
      this.#deps.log(
        `[agentdeck] A2A answer to run '${message.taskId}' failed: ${errorMessage(error)}`,
      ),
    );
    if (!first) throw new Error(`run '${message.taskId}' recorded nothing after its answer`);
    fold.apply(first);
    const rest: AsyncIterator<Event | null> = {
      next: () => tail.next(),
      return: async () => {
        stop.abort();
        return tail.return();
      },
    };
    // An answer whose run stopped at once (cancelled meanwhile): nothing more to follow.
    if (stopsAt(first)) await rest.return?.();
    const followed = stopsAt(first) ? emptyRest() : rest;
    handOver(context, { task: fold.task(), codec: fold.codec, rest: followed, tail: true });
  }

  async #taskFold(taskId: string): Promise<TaskFold> {
    if (!taskId) throw new RequestMalformedError('a task id is required');
    const fold = await this.#store.fold(taskId);
    if (!fold) {
      throw new TaskNotFoundError(
        `no task '${taskId}' of agent '${this.#agent}': pass the id of a task this agent's SendMessage returned`,
      );
    }
    return fold;
  }

  /** Run `call`, with the deck's errors as A2A errors, and an outage kept for the 503. */
  async #guard<T>(context: ServerCallContext, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isBackendOutage(error)) context.state.set(OUTAGE, error);
      throw a2aError(error);
    }
  }
}

/** A deck error as the A2A error a client can act on; others as they are (internal errors). */
function a2aError(error: unknown): unknown {
  if (error instanceof InvalidInputError) return new RequestMalformedError(errorMessage(error));
  if (error instanceof NotFoundError) return new TaskNotFoundError(errorMessage(error));
  if (error instanceof ConflictError) return new UnsupportedOperationError(errorMessage(error));
  return error;
}

function streamResponse(update: TaskUpdate): StreamResponse {
  return update.kind === 'statusUpdate'
    ? { payload: { $case: 'statusUpdate', value: update.data } }
    : { payload: { $case: 'artifactUpdate', value: update.data } };
}

function emptyRest(): AsyncIterator<Event | null> {
  return { next: async () => ({ done: true, value: undefined }) };
}

/** The text of a message that starts a run: its text parts, one per line. */
function textOf(message: Message, agent: string): string {
  const texts: string[] = [];
  message.parts.forEach((part, index) => {
    if (part.content?.$case === 'text') {
      texts.push(part.content.value);
      return;
    }
    throw new RequestMalformedError(
      `message.parts[${index}] is a ${part.content?.$case ?? 'empty'} part: agent '${agent}' takes text parts ` +
        '(a data part {"approved": ..., "reason": ...} answers a task waiting for approval, sent with its taskId)',
    );
  });
  const text = texts.join('\n');
  if (text.trim() === '')
    throw new RequestMalformedError('the message has no text: send at least one text part');
  return text;
}

/** The approval a message on a waiting task carries: its data part `{approved, reason?}`. */
function answerOf(message: Message): { approved: boolean; reason?: string } {
  const data = message.parts.find((part) => part.content?.$case === 'data')?.content?.value as
    | { approved?: unknown; reason?: unknown }
    | undefined;
  const reason = data?.reason;
  if (
    typeof data?.approved !== 'boolean' ||
    (reason !== undefined && reason !== null && typeof reason !== 'string')
  ) {
    throw new RequestMalformedError(
      `task '${message.taskId}' waits for approval of a tool call: answer with a data part ` +
        '{"approved": true}, or {"approved": false, "reason": "<why, told to the model>"}',
    );
  }
  return { approved: data.approved, ...(typeof reason === 'string' ? { reason } : {}) };
}
