/**
 * Tool approvals over the AI SDK surface, through the `ai` package's own client (a chat over
 * `DefaultChatTransport`, answering with `addToolApprovalResponse` and posting again as
 * `lastAssistantMessageIsCompleteWithApprovalResponses` says), against `serve()` on a real port
 * and the scripted model server: a call approved (it runs once, however often the answer is
 * posted) and one rejected, a reload while a call waits, and an answer from beyond this
 * machine refused. One server for the file; each test has a chat (session) of its own.
 */
import { randomUUID } from 'node:crypto';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  readUIMessageStream,
  type UIMessage,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { aiSdkChatFixture, lastMessage, textOf, toolParts, until } from './support/ai-sdk-chat.js';

const api = aiSdkChatFixture();

describe('POST /agents/{name}/ui-chat through the ai package: approvals', {
  timeout: 30_000,
}, () => {
  it('holds a call for approval; an approval runs it once and the turn goes on in the same message', async () => {
    api.refunds.length = 0;
    api.model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'B7' } }] },
      { text: 'Refunded B7.' },
    );
    const posted: string[] = []; // the bodies the transport sent
    const chat = api.newChat(randomUUID(), {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      transport: new DefaultChatTransport({
        api: api.agentApi(),
        fetch: (url, init) => {
          posted.push(String(init?.body));
          return fetch(url, init);
        },
      }),
    });
    await chat.sendMessage({ text: 'Refund B7' });
    const held = lastMessage(chat);
    const [call] = toolParts(held);
    expect(call).toMatchObject({ type: 'tool-refund', state: 'approval-requested' });
    expect(api.refunds).toEqual([]);
    const pending = await (await fetch(`${api.server.url}/pending`)).json();
    expect(pending.items).toContainEqual(
      expect.objectContaining({ run_id: held.id, reason: 'approval' }),
    );

    await chat.addToolApprovalResponse({ id: call?.approval?.id ?? '', approved: true });
    await until(
      () => chat.status === 'ready' && textOf(lastMessage(chat)) !== '',
      'the answered turn',
    );
    const answered = lastMessage(chat);
    expect(chat.messages).toHaveLength(2); // the same assistant message, continued
    expect(answered.id).toBe(held.id);
    expect(toolParts(answered)).toMatchObject([
      { state: 'output-available', output: 'refunded B7' },
    ]);
    expect(textOf(answered)).toBe('Refunded B7.');
    expect(api.refunds).toEqual(['B7']);

    // The same answer posted again (a lost response): the same frames, nothing runs again.
    const transport = new DefaultChatTransport<UIMessage>({ api: api.agentApi() });
    const answerPost = JSON.parse(posted[1] ?? '{}') as { messages: UIMessage[] };
    expect(toolParts(answerPost.messages[1] as UIMessage)).toMatchObject([
      { state: 'approval-responded', approval: { approved: true } },
    ]);
    const again = await transport.sendMessages({
      chatId: chat.id,
      messages: answerPost.messages,
      trigger: 'submit-message',
      messageId: held.id,
      abortSignal: undefined,
    });
    let replayed: UIMessage | undefined;
    for await (const message of readUIMessageStream({
      message: structuredClone(held),
      stream: again,
    })) {
      replayed = message;
    }
    expect(textOf(replayed as UIMessage)).toBe('Refunded B7.');
    expect(api.refunds).toEqual(['B7']);
    api.model.assertConsumed();
  });

  it('a rejected call never runs: the part shows it denied and the model is told', async () => {
    api.refunds.length = 0;
    api.model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'C3' } }] },
      { text: 'I did not refund C3.' },
    );
    const chat = api.newChat(randomUUID(), {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Refund C3' });
    const [call] = toolParts(lastMessage(chat));
    await chat.addToolApprovalResponse({
      id: call?.approval?.id ?? '',
      approved: false,
      reason: 'not eligible',
    });
    await until(
      () => chat.status === 'ready' && textOf(lastMessage(chat)) !== '',
      'the rejected turn',
    );
    const answer = lastMessage(chat);
    expect(toolParts(answer)).toMatchObject([{ type: 'tool-refund', state: 'output-denied' }]);
    expect(textOf(answer)).toBe('I did not refund C3.');
    expect(api.refunds).toEqual([]);
    expect(JSON.stringify(api.model.requests.at(-1)?.body)).toContain('not eligible');
  });

  it('a reload while a call waits shows it waiting, and the reloaded page approves it', async () => {
    api.refunds.length = 0;
    api.model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'E5' } }] },
      { text: 'Refunded E5.' },
    );
    const id = randomUUID();
    const first = api.newChat(id);
    await first.sendMessage({ text: 'Refund E5' });
    const held = lastMessage(first);

    // A client that already has every frame up to the wait gets nothing more: 204.
    const replay = await (await fetch(`${api.agentApi()}/${id}/stream`)).text();
    const lastId = [...replay.matchAll(/^id: (\d+)$/gm)].at(-1)?.[1] ?? '';
    const upToDate = await fetch(`${api.agentApi()}/${id}/stream`, {
      headers: { 'last-event-id': lastId },
    });
    expect(upToDate.status).toBe(204);

    const reloaded = api.newChat(id, {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await reloaded.resumeStream();
    expect(reloaded.messages.map((m) => m.id)).toEqual([held.id]);
    const [call] = toolParts(lastMessage(reloaded));
    expect(call).toMatchObject({
      type: 'tool-refund',
      state: 'approval-requested',
      input: { order: 'E5' },
    });
    await reloaded.addToolApprovalResponse({ id: call?.approval?.id ?? '', approved: true });
    await until(
      () => reloaded.status === 'ready' && textOf(lastMessage(reloaded)) !== '',
      'the answer',
    );
    expect(textOf(lastMessage(reloaded))).toBe('Refunded E5.');
    expect(api.refunds).toEqual(['E5']);
  });

  it('an answer from beyond this machine is refused as the answer route refuses it (no keys set)', async () => {
    api.model.push(
      { toolCalls: [{ name: 'refund', arguments: { order: 'D1' } }] },
      { text: 'Refunded D1.' },
    );
    const chat = api.newChat(randomUUID(), {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      // As a proxy relays it: the client is not this machine.
      transport: new DefaultChatTransport({
        api: api.agentApi(),
        headers: { 'x-forwarded-for': '203.0.113.9' },
      }),
    });
    await chat.sendMessage({ text: 'Refund D1' }); // chatting is allowed from anywhere
    const [call] = toolParts(lastMessage(chat));
    await chat.addToolApprovalResponse({ id: call?.approval?.id ?? '', approved: true });
    await until(() => chat.status === 'error', 'the refusal');
    expect(chat.error?.message).toContain('refused to clients beyond this machine');
    const run = await (await fetch(`${api.server.url}/runs/${lastMessage(chat).id}`)).json();
    expect(run.status).toBe('waiting_human');
    // Answered from this machine, it plays (and uses the script's second step).
    const local = await fetch(`${api.server.url}/runs/${run.run_id}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { approved: false } }),
    });
    expect(local.status).toBe(200);
  });
});
