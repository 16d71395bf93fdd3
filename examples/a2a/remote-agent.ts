/**
 * An agent of another service as a tool, over A2A: `remoteAgentTool()` makes an agentdeck
 * `tool()` whose `execute` sends the model's message to the remote agent with `@a2a-js/sdk`'s
 * client (its card fetched once, from the URL given) and returns the remote answer's text. A
 * remote task that waits for a person (a tool call held for approval there) comes back as a
 * sentence saying so, with its task id, so the model can tell the user; one that failed or was
 * cancelled is an error the model sees. Each call is a new conversation on the remote side
 * unless the same `contextId` is reused (here: one per calling session is not kept; keep it in
 * your own context if the remote agent should remember).
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { tool } from 'agentdeck';
import { z } from 'zod';

export interface RemoteAgentToolOptions {
  /** The tool's name, as the model sees it. */
  name: string;
  /** What the remote agent does, for the model choosing the tool. */
  description: string;
  /** The remote agent's card: `https://payments.example/a2a/payer/.well-known/agent-card.json`. */
  cardUrl: string;
  /** The remote service's API key, sent as `Authorization: Bearer <key>`. @default none */
  apiKey?: string;
}

export function remoteAgentTool(options: RemoteAgentToolOptions) {
  let client: Promise<Client> | undefined;
  const connect = () => {
    const key = options.apiKey;
    const fetchImpl = key
      ? createAuthenticatingFetchWithRetry(fetch, {
          headers: async () => ({ authorization: `Bearer ${key}` }),
          shouldRetryWithHeaders: async () => undefined,
        })
      : fetch;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    // The card's full URL, and '' for the path: the SDK's default path is the origin's root.
    return factory.createFromUrl(options.cardUrl, '');
  };
  return tool({
    name: options.name,
    description: options.description,
    parameters: z.object({ message: z.string().describe('What to ask the remote agent') }),
    execute: async ({ message }) => {
      client ??= connect();
      const request = SendMessageRequest.fromJSON({
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: message }] },
      });
      const result = await (await client).sendMessage(request);
      if (!('id' in result)) return textOf(result.parts);
      return answerOf(result);
    },
  });
}

/** The remote task's answer, or what it waits for; an error when it did not complete. */
function answerOf(task: Task): string {
  const state = task.status?.state;
  if (state === TaskState.TASK_STATE_COMPLETED) {
    return task.artifacts.map((artifact) => textOf(artifact.parts)).join('\n');
  }
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    return `The remote agent waits for a person's approval (task ${task.id}): ${textOf(task.status?.message?.parts ?? [])}`;
  }
  const note = textOf(task.status?.message?.parts ?? []);
  throw new Error(
    `the remote task ${task.id} ended ${TaskState[state ?? 0]}${note ? `: ${note}` : ''}`,
  );
}

function textOf(parts: Task['artifacts'][number]['parts']): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter(Boolean)
    .join('');
}
