/**
 * `POST /workflows/{name}/ui-chat`: a workflow run as a UI message stream, for a front end
 * that shows its progress with `useChat`. The chat id is the thread; the initial state is
 * the body's `state` field (what the transport's `body` option adds). Each `node.updated` is
 * a `data-node` part, a question the run waits at a `data-interrupt` part with the run id,
 * which is answered through the existing routes (`POST /runs/{run_id}/answer`).
 */
import { type HttpDeps, unknownName } from '../http/deps.js';
import { HttpError } from '../http/errors.js';
import { route } from '../http/routes.js';
import { Detail } from '../http/schemas.js';
import { chatIdOf, UiWorkflowBody } from './ui-chat-body.js';
import { uiTurnResponse } from './ui-stream.js';

export function uiWorkflowRoutes(deps: HttpDeps) {
  const { deck } = deps;
  return [
    route<UiWorkflowBody>({
      method: 'post',
      path: '/workflows/{name}/ui-chat',
      role: 'run',
      summary: 'Run a workflow as an AI SDK UI message stream',
      description:
        'The body `DefaultChatTransport` sends, with the initial state in `state` (the ' +
        "transport's `body` option). The chat `id` is the thread. A client that disconnects " +
        'does not stop the run.',
      tag: 'workflows',
      body: { schema: UiWorkflowBody, description: "The chat transport's request and the state." },
      responses: {
        200: {
          description: 'The run as it plays.',
          sse:
            'The AI SDK UI message stream (see `POST /agents/{name}/ui-chat`): `start`, a ' +
            '`data-node` part per completed node (`data: {node, update}`), then `finish`; a ' +
            '`data-interrupt` part (`data: {run_id, payload}`) and `finish` when the run waits ' +
            'for an answer; `error` or `abort`. Frames carry `id: <seq>`; `data: [DONE]` last.',
          headers: ['X-Run-Id'],
        },
        404: { description: 'No workflow by that name.', schema: Detail },
        409: {
          description: 'The thread is busy (running, or waiting for an answer).',
          schema: Detail,
        },
        422: { description: 'A malformed body, or no `state`.', schema: Detail },
      },
      async handle({ params, body, request }) {
        const name = params.name ?? '';
        if (!deck.workflows.has(name)) throw unknownName('workflow', name, deck.workflows.keys());
        const threadId = chatIdOf(body.id);
        if (body.state === undefined) {
          throw new HttpError(
            422,
            "body field 'state' is missing: send the workflow's initial state in it (useChat: new DefaultChatTransport({ body: { state } }))",
          );
        }
        const options = { sessionId: threadId, ...(await deps.runContext(request)) };
        const events = deck.stream(name, body.state, options);
        const first = await events.next(); // state and thread claim are decided here
        if (first.done) throw new HttpError(500, `the run of '${name}' recorded nothing`);
        return uiTurnResponse(deps, first, events);
      },
    }),
  ];
}
