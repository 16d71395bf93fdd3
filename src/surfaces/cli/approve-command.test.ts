/**
 * `agentdeck runs reject <run_id> --reason ... --url URL` against a tool whose approval
 * declares its reason's shape (#41), in this process over a real socket: a reason that does
 * not match is refused naming the field (exit 1, the server's 422 on stderr) and the call
 * still waits; `--reason` given as JSON that matches rejects it, and the model is told why.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { testDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { useScriptedModelServer } from '../../../test/support/model-server.js';
import { Agent, tool } from '../../index.js';
import { serve } from '../http/serve.js';
import { main } from './approve-command.js';

const modelServer = useScriptedModelServer();

afterEach(() => {
  vi.restoreAllMocks();
});

const wire = tool({
  name: 'wire',
  description: 'Wire money',
  parameters: z.object({ to: z.string() }),
  needsApproval: true,
  approvalReason: z.object({ code: z.enum(['fraud', 'limit']), note: z.string().optional() }),
  execute: ({ to }) => `wired to ${to}`,
});

it('refuses a reason of the wrong shape naming the field, then rejects with a matching one', async () => {
  const { deck } = testDeck({ agents: [new Agent({ name: 'Banker', tools: [wire] })] });
  await using server = await serve(deck, { host: '127.0.0.1', port: 0, handleSignals: false });
  const model = modelServer();
  model.push({ toolCalls: [{ name: 'wire', arguments: { to: 'eve' } }] }, { text: 'Not wired.' });
  const chat = await fetch(
    `${server.url}/agents/Banker/chat`,
    postJson({ session_id: 'bank-1', message: 'Wire eve' }),
  );
  const runId = chat.headers.get('x-run-id') ?? '';
  await chat.text();
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));

  const reject = (reason: string) =>
    main(['runs', 'reject', runId, '--reason', reason, '--url', server.url]);
  expect(await reject('{"code": "bored"}')).toBe(1);
  expect(errors.join('\n')).toMatch(
    /422 .*answer\.reason\.code: expected one of "fraud", "limit", got "bored"/,
  );
  expect(await deck.status(runId)).toBe('waiting_human');

  expect(await reject('{"code": "fraud", "note": "unknown payee"}')).toBe(0);
  expect(printed.join('\n')).toContain("rejected tool 'wire'");
  expect(await deck.status(runId)).toBe('completed');
  expect(JSON.stringify(model.requests.at(-1)?.body)).toContain('unknown payee');
});
