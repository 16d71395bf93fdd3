/**
 * The `AgentExecutor` of the A2A server: it follows a run the request handler has already
 * started or answered (request-handler.ts decides that before any response, so a busy session
 * or a malformed answer is a JSON-RPC error, never a failed task) and publishes the run's
 * events, through the codec, on the SDK's event bus: first the task, then its status and
 * artifact updates until the run ends or waits. It reads the deck's own stream of the run, or
 * the event log, never the client: a client that goes away stops reading the bus, not the
 * run. Cancelling is the request handler's, through the deck (`cancelTask` here is unused).
 */
import type { Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import { type Event, isTerminal } from '../../core/events.js';
import { encodeEvent, type TaskCodecState } from './codec.js';

/** A run a request started or answered, handed to the executor to follow. */
export interface FollowedRun {
  /** The task as of the run's latest event read (what the request changed included). */
  task: Task;
  /** The codec's state as of that event. */
  codec: TaskCodecState;
  /** The run's next events: the deck's own stream of it, or a tail of the log (`null`: nothing new yet). */
  rest: AsyncIterator<Event | null>;
  /**
   * `rest` is a tail of the log, which goes on past the run's stops: end at the first (the
   * deck's stream ends there by itself, and must be read to its end to free the session).
   */
  tail: boolean;
}

const FOLLOWED = 'agentdeck.a2a.followedRun';

/** Hand `run` to the executor of this request. */
export function handOver(context: ServerCallContext, run: FollowedRun): void {
  context.state.set(FOLLOWED, run);
}

/**
 * A run handed over that no executor took (the SDK refused the request after the run began):
 * read it to its end in the background, so it finishes and frees its session instead of
 * holding it until the stale-claim sweep.
 */
export function releaseUntaken(context: ServerCallContext): void {
  const run = context.state.get(FOLLOWED) as FollowedRun | undefined;
  if (!run) return;
  context.state.delete(FOLLOWED);
  void (async () => {
    if (run.tail) return void (await run.rest.return?.());
    for (let step = await run.rest.next(); !step.done; step = await run.rest.next()) {}
  })().catch(() => {}); // the run records its own failure
}

/** Whether the run stops at `event` for now: it ended, or waits for a person, or was paused. */
export function stopsAt(event: Event): boolean {
  return isTerminal(event) || event.kind === 'run.interrupted' || event.kind === 'run.paused';
}

export class RunExecutor implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const run = request.context.state.get(FOLLOWED) as FollowedRun | undefined;
    if (!run)
      throw new Error('no run was handed to the A2A executor (request-handler.ts starts it)');
    request.context.state.delete(FOLLOWED);
    bus.publish(AgentEvent.task(run.task));
    let codec = run.codec;
    try {
      for (;;) {
        const next = await run.rest.next();
        if (next.done) return;
        if (next.value === null) continue; // a tail's keep-alive
        const step = encodeEvent(codec, next.value);
        codec = step.state;
        for (const update of step.updates) bus.publish(update);
        if (run.tail && stopsAt(next.value)) return;
      }
    } finally {
      if (run.tail) await run.rest.return?.();
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    throw new Error(`task '${taskId}': cancelled by the request handler through the deck`);
  }
}
