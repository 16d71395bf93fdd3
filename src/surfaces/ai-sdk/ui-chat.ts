/**
 * The AI SDK's chat routes for agents. `POST /agents/{name}/ui-chat` takes what
 * `DefaultChatTransport` posts: a user message starts a turn on the session the chat id
 * names; an assistant message whose held tool call was answered (`addToolApprovalResponse`)
 * answers it, by the rules of `POST /runs/{id}/answer`, and streams the rest of the turn as
 * the same message (its id is the run id). `GET /agents/{name}/ui-chat/{chat_id}/stream` is
 * what `useChat({ resume: true })` calls: the session's run in progress from the log, or 204.
 * Every stream is a reader of the event log (`ui-stream.ts`): a client that leaves does not
 * stop the run; `POST /runs/{run_id}/cancel` does, and the stream then ends with `abort`.
 */
import { errorMessage, NotFoundError } from '../../core/errors.js';
import type { RunSummary } from '../../core/store.js';
import { answerIdOf } from '../../runtime/answer-replay.js';
import { type HttpDeps, unknownName } from '../http/deps.js';
import { HttpError } from '../http/errors.js';
import { route } from '../http/routes.js';
import { Detail } from '../http/schemas.js';
import { type ApprovalResponse, chatIdOf, readLastMessage, UiChatBody } from './ui-chat-body.js';
import { uiStreamResponse, uiTurnResponse } from './ui-stream.js';

const STREAM_DESCRIPTION =
  'The AI SDK UI message stream (protocol v1, header `x-vercel-ai-ui-message-stream: v1`): ' +
  'one `data: <chunk JSON>` frame per chunk, each with `id: <seq>` of the canonical event it ' +
  'came from, then `data: [DONE]`. `start` (messageId = the run id, `messageMetadata.run_id`), ' +
  '`start-step`/`finish-step` around each model request, `text-*`, `reasoning-*`, ' +
  '`tool-input-available`, `tool-output-available`/`tool-output-error`/`tool-output-denied`, ' +
  '`tool-approval-request`, `data-progress`/`data-status`/`data-custom`/`data-artifact`, then ' +
  '`finish`, `error` (a failed run) or `abort` (cancelled or paused).';

/** Runs of a session still going: a resume replays them, a regenerate waits for them. */
const IN_PROGRESS: readonly string[] = ['running', 'waiting_human'];

export function uiChatRoutes(deps: HttpDeps) {
  const { deck } = deps;
  const knownAgent = (name: string | undefined) => {
    if (name === undefined || !deck.agents.has(name)) {
      throw unknownName('agent', name ?? '', deck.agents.keys());
    }
    return name;
  };
  return [
    route<UiChatBody>({
      method: 'post',
      path: '/agents/{name}/ui-chat',
      role: 'run',
      summary: 'Chat with an agent as the AI SDK does (useChat)',
      description:
        "The body `DefaultChatTransport` sends. The chat `id` is the agent's session; the service " +
        'keeps the history, so only the last message is read: a user message (text parts; file ' +
        'parts as images, audio or resources) starts a turn; an assistant message with tool calls ' +
        '`approval-responded` answers the call its run holds (once: the same answer posted again ' +
        'replays the stream and runs nothing; with no API keys set, only from this machine, as ' +
        '`POST /runs/{run_id}/answer`). `trigger: "regenerate-message"` takes the last ' +
        'answer out of the session and answers the last user message again. A client that ' +
        'disconnects does not stop the run: resume with `GET .../ui-chat/{chat_id}/stream`.',
      tag: 'agents',
      body: { schema: UiChatBody, description: "The chat transport's request." },
      responses: {
        200: {
          description: 'The turn (or the rest of it), as it plays.',
          sse: STREAM_DESCRIPTION,
          headers: ['X-Run-Id'],
        },
        404: {
          description: 'No agent by that name, or no run for the answered message.',
          schema: Detail,
        },
        409: {
          description:
            'The session is busy with another turn; the answered run waits for another call, or is not waiting.',
          schema: Detail,
        },
        422: {
          description: 'A malformed body, or a last message with nothing to do.',
          schema: Detail,
        },
      },
      async handle({ params, body, request, controlRefusal }) {
        const name = knownAgent(params.name);
        const chatId = chatIdOf(body.id);
        const wanted = readLastMessage(body.messages);
        if (wanted.kind === 'approval') {
          // An answer, as POST /runs/{run_id}/answer: for the clients that route allows.
          const refused = controlRefusal('answer');
          if (refused) return refused;
          return answerHeldCall(deps, name, chatId, wanted, request);
        }
        if (body.trigger === 'regenerate-message') {
          await refuseBusy(deps, name, chatId, 'regenerate its last answer');
          await deps.popTurn(chatId);
        }
        await deps.sessionsReachable(); // a stream's status goes with its first frame
        const options = { sessionId: chatId, ...(await deps.runContext(request)) };
        const events = deck.stream(name, wanted.input, options);
        const first = await events.next(); // the claim is decided here: busy is a 409
        if (first.done) throw new HttpError(500, `the turn of '${name}' recorded nothing`);
        return uiTurnResponse(deps, first, events);
      },
    }),
    route({
      method: 'get',
      path: '/agents/{name}/ui-chat/{chat_id}/stream',
      role: 'read',
      summary: "Resume a chat's stream (useChat's resume)",
      description:
        'The run in progress on the session (running, or waiting for an approval) from its ' +
        'start, or only the frames after `Last-Event-ID`; 204 when the session has none.',
      tag: 'agents',
      responses: {
        200: {
          description: 'The run, from the log.',
          sse: STREAM_DESCRIPTION,
          headers: ['X-Run-Id'],
        },
        204: {
          description:
            'No run in progress on this session (or it waits, and `Last-Event-ID` is past its last event).',
        },
        404: { description: 'No agent by that name.', schema: Detail },
        422: { description: 'A malformed `Last-Event-ID`.', schema: Detail },
      },
      async handle({ params, request }) {
        const name = knownAgent(params.name);
        const chatId = params.chat_id ?? '';
        const [run] = await deps.eventLog().listRuns({ sessionId: chatId, origin: name, limit: 1 });
        if (!run || !IN_PROGRESS.includes(run.status)) return new Response(null, { status: 204 });
        const afterSeq = lastEventIdOf(request);
        // Waiting, and the client has every frame up to the wait: nothing to send until an answer.
        if (run.status !== 'running' && afterSeq >= run.lastSeq) {
          return new Response(null, { status: 204 });
        }
        // Pauses answered before now are passed over; the one the run waits at ends the stream.
        const stopFrom = run.status === 'running' ? run.lastSeq + 1 : run.lastSeq;
        return uiStreamResponse(deps, run.runId, { afterSeq, stopFrom, announce: false });
      },
    }),
  ];
}

/** 409 when the session's latest run is still going. */
async function refuseBusy(deps: HttpDeps, name: string, chatId: string, doing: string) {
  const [run] = await deps.eventLog().listRuns({ sessionId: chatId, origin: name, limit: 1 });
  if (run && IN_PROGRESS.includes(run.status)) {
    throw new HttpError(
      409,
      `Session '${chatId}' has run '${run.runId}' in progress (${run.status}): wait for it, answer or cancel it, then ${doing}.`,
    );
  }
}

/** `Last-Event-ID` as a seq (-1 without one). */
function lastEventIdOf(request: Request): number {
  const header = request.headers.get('last-event-id');
  if (header === null || header.trim() === '') return -1;
  const seq = Number(header);
  if (!Number.isInteger(seq) || seq < -1) {
    throw new HttpError(422, `header Last-Event-ID: expected a seq (an integer), got '${header}'`);
  }
  return seq;
}

/**
 * Answer the call the message's run holds and stream the rest of the turn. A run that has
 * moved on is not answered again: when its latest answer is this one, its stream from that
 * answer is sent again (the client lost the first response); otherwise 409, as the inbox says.
 */
async function answerHeldCall(
  deps: HttpDeps,
  name: string,
  chatId: string,
  wanted: { messageId: string; runId: string | null; answers: ApprovalResponse[] },
  request: Request,
): Promise<Response> {
  const runId = wanted.runId ?? wanted.messageId;
  const run = await deps.eventLog().getRun(runId);
  if (!run || run.origin !== name || run.sessionId !== chatId) {
    throw new HttpError(
      404,
      `No run '${runId}' of agent '${name}' on chat '${chatId}': the answered message must be one this chat streamed.`,
    );
  }
  const answerValue = (answer: ApprovalResponse) => ({
    approved: answer.approved,
    reason: answer.reason,
    call_id: answer.toolCallId,
  });
  if (run.status !== 'waiting_human') {
    return replayAnswered(deps, run, wanted.answers.map(answerValue));
  }
  const pending = (await deps.deck.pending()).find((item) => item.runId === runId);
  const heldCall = (pending?.payload as { call_id?: unknown } | undefined)?.call_id;
  const answer = wanted.answers.find((a) => a.toolCallId === heldCall);
  if (!answer) {
    const sent = wanted.answers.map((a) => `'${a.toolCallId}'`).join(', ');
    throw new HttpError(
      409,
      `Run '${runId}' waits for an answer to call '${String(heldCall)}', and the message answers ${sent}.`,
    );
  }
  const context = await deps.runContext(request);
  const answering = deps.deck.answer(runId, answerValue(answer), context);
  // Its refusals (answered meanwhile, a bad answer) come before the run moves: say them as errors.
  const refusal = await refusedBeforeMoving(deps, run, answering);
  if (refusal !== null) {
    if (refusal instanceof NotFoundError) throw new HttpError(409, errorMessage(refusal));
    throw refusal;
  }
  answering.catch((error: unknown) => {
    deps.log(`[agentdeck] ui-chat answer to run '${runId}' failed: ${errorMessage(error)}`);
  });
  return uiStreamResponse(deps, runId, {
    afterSeq: run.lastSeq,
    stopFrom: run.lastSeq + 1,
    announce: true,
  });
}

/** The answer's error if it failed before the run recorded anything more, else `null`. */
async function refusedBeforeMoving(
  deps: HttpDeps,
  run: RunSummary,
  answering: Promise<unknown>,
): Promise<unknown> {
  let settled: { error: unknown } | null = null;
  answering.then(
    () => {
      settled = { error: null };
    },
    (error: unknown) => {
      settled = { error };
    },
  );
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    const now = await deps.eventLog().getRun(run.runId);
    if ((now?.lastSeq ?? run.lastSeq) > run.lastSeq) return null;
    const outcome = settled as { error: unknown } | null;
    if (outcome !== null) return outcome.error;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The stream of the run's latest answer again, when it is one of these; else 409. */
async function replayAnswered(deps: HttpDeps, run: RunSummary, values: unknown[]) {
  const events = await deps.eventLog().read(run.runId);
  const resumed = events.findLast((event) => event.kind === 'run.resumed');
  const ids = new Set(values.map((value) => answerIdOf(value)));
  if (resumed?.kind !== 'run.resumed' || !ids.has(resumed.payload.answerId ?? '')) {
    throw new HttpError(
      409,
      `Run '${run.runId}' is not waiting for an answer (its status is ${run.status}).`,
    );
  }
  return uiStreamResponse(deps, run.runId, {
    afterSeq: resumed.seq - 1,
    stopFrom: resumed.seq,
    announce: true,
  });
}
