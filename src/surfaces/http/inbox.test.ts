/**
 * The inbox over HTTP (#19): a chat that stops for a tool approval answers `{"output": null}`
 * plus the pending item (JSON) or ends with `event: approval` (SSE); `GET /pending` lists
 * agents' approvals beside workflow interrupts; `POST /runs/{run_id}/answer` answers either,
 * with 404, 409 and 422 for what cannot be answered, and one winner of two concurrent answers.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../../test/support/decks.js';
import { heldShipping } from '../../../test/support/held-tool.js';
import { postJson } from '../../../test/support/http.js';
import { useScriptedModelServer } from '../../../test/support/model-server.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent, tool } from '../../index.js';

const modelServer = useScriptedModelServer();
const sent: string[] = [];

const sendEmail = tool({
  name: 'send_email',
  description: 'Send an email',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  execute: ({ to }) => {
    sent.push(to);
    return `sent to ${to}`;
  },
});

async function inboxApp() {
  sent.length = 0;
  const mailer = new Agent({ name: 'Mailer', tools: [sendEmail] });
  const { deck } = await openTestDeck({ agents: [mailer], workflows: [approval()] });
  return deck.app();
}

const chat = (session: string, message = 'Email ann') => postJson({ session_id: session, message });

describe('tool approvals over HTTP', () => {
  it('JSON chat: output null plus the pending item; GET /pending; POST /runs/{id}/answer approves', async () => {
    const app = await inboxApp();
    modelServer().push(
      { toolCalls: [{ name: 'send_email', arguments: { to: 'ann' } }] },
      { text: 'Sent.' },
    );
    const response = await app.request('/agents/Mailer/chat', chat('s-1'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    const runId = response.headers.get('x-run-id');
    expect(body).toEqual({
      output: null,
      run_id: runId,
      invocable: 'Mailer',
      kind: 'agent',
      reason: 'approval',
      thread_id: 's-1',
      session_id: 's-1',
      payload: { tool: 'send_email', call_id: expect.any(String), arguments: { to: 'ann' } },
    });

    await app.request('/workflows/approval?thread_id=t-1', postJson({ amount: 5 }));
    const inbox = (await (await app.request('/pending')).json()) as { items: { reason: string }[] };
    expect(inbox.items.map((i) => i.reason)).toEqual(['approval', 'interrupt']);

    const answered = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: true } }),
    );
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({
      run_id: runId,
      status: 'completed',
      result: { output: 'Sent.' },
      pending: null,
    });
    expect(sent).toEqual(['ann']);
  });

  it('SSE chat ends with event: approval; a rejection over HTTP never sends', async () => {
    const app = await inboxApp();
    modelServer().push(
      {
        text: ['Let me ', 'send it.'],
        toolCalls: [{ name: 'send_email', arguments: { to: 'bob' } }],
      },
      { text: 'Not sent.' },
    );
    const response = await app.request('/agents/Mailer/chat?stream=true', chat('s-2'));
    const text = await response.text();
    expect(text).toMatch(/^data: \{"delta": "Let me /);
    const last = text.trim().split('\n\n').at(-1) ?? '';
    expect(last.split('\n')[0]).toBe('event: approval');
    const frame = JSON.parse(last.split('\n')[1]?.slice('data: '.length) ?? '{}');
    expect(frame).toMatchObject({
      kind: 'agent',
      reason: 'approval',
      payload: { tool: 'send_email' },
    });

    const answered = await app.request(
      `/runs/${frame.run_id}/answer`,
      postJson({ value: { approved: false, reason: 'wrong person' } }),
    );
    expect(await answered.json()).toMatchObject({
      status: 'completed',
      result: { output: 'Not sent.' },
    });
    expect(sent).toEqual([]);
  });

  it('answers a workflow interrupt by run id', async () => {
    const app = await inboxApp();
    await app.request('/workflows/approval?thread_id=t-9', postJson({ amount: 7 }));
    const { items } = (await (await app.request('/pending')).json()) as {
      items: { run_id: string }[];
    };
    const runId = items[0]?.run_id;
    const answered = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: true } }),
    );
    expect(await answered.json()).toMatchObject({
      status: 'completed',
      result: { amount: 7, approved: true },
      pending: null,
    });
  });

  it('404 unknown run, 409 not waiting, 422 malformed, and one of two concurrent answers wins', async () => {
    const app = await inboxApp();
    expect(
      (await app.request('/runs/nope/answer', postJson({ value: { approved: true } }))).status,
    ).toBe(404);
    modelServer().push(
      { toolCalls: [{ name: 'send_email', arguments: { to: 'cy' } }] },
      { text: 'ok' },
    );
    const runId = (await app.request('/agents/Mailer/chat', chat('s-3'))).headers.get('x-run-id');
    const missing = await app.request(`/runs/${runId}/answer`, postJson({}));
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({ detail: 'missing field: value' });
    const malformed = await app.request(`/runs/${runId}/answer`, postJson({ value: 'yes' }));
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: string }).detail).toContain('"approved": true');

    const both = await Promise.all([
      app.request(`/runs/${runId}/answer`, postJson({ value: { approved: true } })),
      app.request(`/runs/${runId}/answer`, postJson({ value: { approved: true } })),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const won = await both.find((r) => r.status === 200)?.json();
    expect(sent).toEqual(['cy']);
    // The same answer again once the run moved on: the first one's outcome (#36).
    const again = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: true } }),
    );
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(won);
    const other = await app.request(
      `/runs/${runId}/answer`,
      postJson({ value: { approved: false } }),
    );
    expect(other.status).toBe(409);
    expect(((await other.json()) as { detail: string }).detail).toContain('not waiting');
    expect(sent).toEqual(['cy']);
  });

  it('a repeated approval with its Idempotency-Key: 409 while it plays, then its first body (#36)', async () => {
    const { agent, running, release, shipped } = heldShipping();
    const { deck } = await openTestDeck({ agents: [agent] });
    const app = deck.app();
    modelServer().push(
      { toolCalls: [{ name: 'ship', arguments: { order: 'H1' } }] },
      { text: 'Shipped H1.' },
    );
    const chatted = await app.request('/agents/Dispatcher/chat', chat('s-4', 'Ship H1'));
    const runId = chatted.headers.get('x-run-id');
    const answer = (value: unknown, key = 'k-1') =>
      app.request(`/runs/${runId}/answer`, postJson({ value }, { 'Idempotency-Key': key }));
    const answering = answer({ approved: true });
    await running;
    const playing = await answer({ approved: true });
    expect(playing.status).toBe(409);
    expect(((await playing.json()) as { detail: string }).detail).toContain('still playing');
    release();
    const first = await answering;
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toEqual({
      run_id: runId,
      status: 'completed',
      result: { output: 'Shipped H1.' },
      pending: null,
    });
    const repeated = await answer({ approved: true });
    expect(repeated.status).toBe(200);
    expect(repeated.headers.get('x-run-id')).toBe(runId);
    expect(await repeated.json()).toEqual(body);
    const other = await answer({ approved: false }, 'k-2');
    expect(other.status).toBe(409);
    expect(((await other.json()) as { detail: string }).detail).toContain('not waiting');
    expect(shipped).toEqual(['H1']);
    modelServer().assertConsumed();
  });
});
