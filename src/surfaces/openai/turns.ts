/**
 * How the `/v1` routes start an agent turn, the same way for chat completions and
 * responses: the model names an agent (else 404 `model_not_found`), the session comes from
 * the `X-Session-Id` header or the body's `session_id`, and the run is started and its first
 * event awaited before any response is chosen, so a busy session is a real 409, never an
 * error frame, and a stream asks the session backend first, so an outage is a 503 with
 * `Retry-After`, never a 200 that fails (as `POST /agents/{name}/chat` does).
 */
import type { Event } from '../../core/events.js';
import { idProblem } from '../../core/ids.js';
import type { HttpDeps } from '../http/deps.js';
import { HttpError } from '../http/errors.js';
import type { ServedTurnOptions } from '../http/served-deck.js';
import { OpenAiError } from './errors.js';
import type { TurnMessages } from './messages.js';

export const SESSION_HEADER = 'x-session-id';

/** The agent a request's `model` names; 404 `model_not_found` otherwise. */
export function agentOf(deps: HttpDeps, model: string): string {
  if (deps.deck.agents.has(model)) return model;
  const names = [...deps.deck.agents.keys()].map((n) => `'${n}'`).join(', ');
  throw new OpenAiError(
    404,
    `The model '${model}' does not exist: a model is one of this service's agents (${names || 'none'}); GET /v1/models lists them`,
    'model',
    'model_not_found',
  );
}

/** The session a request names (header or body; both must agree), or `undefined`. */
export function sessionOf(request: Request, bodyId: string | undefined): string | undefined {
  const header = request.headers.get(SESSION_HEADER) ?? undefined;
  if (header !== undefined) {
    const problem = idProblem(header);
    if (problem !== null) {
      throw new OpenAiError(400, `header X-Session-Id ${problem}`, 'X-Session-Id');
    }
    if (bodyId !== undefined && bodyId !== header) {
      throw new OpenAiError(
        400,
        `X-Session-Id '${header}' and session_id '${bodyId}' name different sessions; send one of them`,
        'session_id',
      );
    }
  }
  return header ?? bodyId;
}

export interface StartedTurn {
  first: IteratorResult<Event, void>;
  events: AsyncGenerator<Event, void, undefined>;
  runId: string;
}

/** Start the turn and await its first event (a refused claim throws here: 409). */
export async function startTurn(
  deps: HttpDeps,
  request: Request,
  agent: string,
  turn: TurnMessages,
  options: {
    sessionId?: string | undefined;
    runId?: string;
    stream: boolean;
    keepHistory: boolean;
  },
): Promise<StartedTurn> {
  // A JSON answer has no frame to carry the failure: say what to set before starting a run.
  const missing = options.stream ? null : deps.missingModel(agent);
  if (missing) throw new HttpError(503, missing);
  // A stream's status goes with its first frame: ask a session backend first (503 if down).
  if (options.stream && options.sessionId !== undefined) await deps.sessionsReachable();
  const played: ServedTurnOptions = { ...(await deps.runContext(request)) };
  if (options.sessionId !== undefined) played.sessionId = options.sessionId;
  if (options.runId !== undefined) played.runId = options.runId;
  if (turn.instructions !== undefined) played.instructions = turn.instructions;
  if (options.keepHistory && turn.history.length > 0) played.history = turn.history;
  const events = deps.playTurn(agent, turn.message, played, options.stream);
  const first = await events.next();
  return { first, events, runId: first.done ? (options.runId ?? '') : first.value.runId };
}
