/**
 * The 1.2.1 stream routes byte for byte: whole `?stream=true` responses compared with the
 * frames WIRE.md shows (Python's `json.dumps` spacing, non-ASCII as `\uXXXX`). Agent turns take
 * the real client path against the scripted OpenAI-compatible server, with the deltas spaced
 * so that none are joined and each is its own frame.
 */
import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { useScriptedModelServer } from '../../../test/support/model-server.js';
import { Agent, interrupt, tool, Workflow } from '../../index.js';

const modelServer = useScriptedModelServer();

/** WIRE.md's frames, copied from it verbatim (each followed by the blank line that ends it). */
const WIRE = {
  chat: [
    'data: {"delta": "Tuesday "}\n\n',
    'data: {"delta": "at 9am "}\n\n',
    'event: done\ndata: {"output": "Tuesday at 9am works.", "usage": {"requests": 2, "input_tokens": 22, "output_tokens": 10, "total_tokens": 32}}\n\n',
  ],
  workflow: [
    'data: {"type": "node_update", "node": "shout", "delta": {"upper": "HELLO"}}\n\n',
    'data: {"type": "node_update", "node": "notify", "delta": null}\n\n',
    'event: done\ndata: {"text": "hello", "upper": "HELLO", "length": 5}\n\n',
  ],
};

const DELAY_MS = 40;

function booker() {
  const findSlots = tool({
    name: 'find_slots',
    description: 'Free slots on a day',
    parameters: z.object({ day: z.string() }),
    execute: async ({ day }) => `${day}: 9am`,
  });
  return new Agent({ name: 'Greeter', instructions: 'Book.', tools: [findSlots] });
}

async function chat(message = 'When?') {
  const { deck } = await openTestDeck({ agents: [booker()] });
  const response = await deck
    .app({ log: () => {} })
    .request('/agents/Greeter/chat?stream=true', postJson({ session_id: 's-1', message }));
  expect(response.status).toBe(200);
  return response.text();
}

const toolStep = {
  toolCalls: [{ name: 'find_slots', arguments: { day: 'tuesday' } }],
  usage: { inputTokens: 12, outputTokens: 4 },
};

describe('POST /agents/{name}/chat?stream=true, byte for byte', () => {
  it("writes WIRE.md's frames for a turn with a tool call", async () => {
    modelServer().push(toolStep, {
      text: ['Tuesday ', 'at 9am ', 'works.'],
      usage: { inputTokens: 10, outputTokens: 6 },
      delayMs: DELAY_MS,
    });
    // WIRE.md shows two of the three deltas of "Tuesday at 9am works.": the third is the
    // same frame for "works.".
    const [tuesday, nine, done] = WIRE.chat;
    expect(await chat()).toBe(`${tuesday}${nine}data: {"delta": "works."}\n\n${done}`);
    modelServer().assertConsumed();
  });

  it('escapes non-ASCII text as \\uXXXX, a character beyond the BMP as a surrogate pair', async () => {
    modelServer().push({
      text: ['Café ', '☕ at 9am ', '😀'],
      usage: { inputTokens: 3, outputTokens: 4 },
      delayMs: DELAY_MS,
    });
    expect(await chat('Quand ?')).toBe(
      'data: {"delta": "Caf\\u00e9 "}\n\n' +
        'data: {"delta": "\\u2615 at 9am "}\n\n' +
        'data: {"delta": "\\ud83d\\ude00"}\n\n' +
        'event: done\ndata: {"output": "Caf\\u00e9 \\u2615 at 9am \\ud83d\\ude00", ' +
        '"usage": {"requests": 1, "input_tokens": 3, "output_tokens": 4, "total_tokens": 7}}\n\n',
    );
  });

  it('replaces done with an error frame when the turn fails after the stream began', async () => {
    modelServer().push(
      { text: ['Checking '], ...toolStep },
      { error: 'upstream said: token sk-secret-123 is invalid' },
    );
    expect(await chat()).toBe(
      'data: {"delta": "Checking "}\n\nevent: error\ndata: {"error": "InternalServerError"}\n\n',
    );
  });
});

const Text = z.object({
  text: z.string(),
  upper: z.string().optional(),
  length: z.number().optional(),
});
type TextState = z.infer<typeof Text>;

/** WIRE.md's stream: shout, then notify (no update); `length` comes with the input. */
const shout = new Workflow({
  name: 'shout',
  state: Text,
  graph: (state) =>
    new StateGraph(state)
      .addNode('shout', (s: TextState) => ({ upper: s.text.toUpperCase() }))
      .addNode('notify', () => ({}))
      .addEdge(START, 'shout')
      .addEdge('shout', 'notify')
      .addEdge('notify', END),
});

const Ask = z.object({ amount: z.number(), note: z.string().optional() });
/** prepare (an update and a custom write, non-ASCII both) -> ask (interrupts). */
const approve = new Workflow({
  name: 'approve',
  state: Ask,
  graph: (state) =>
    new StateGraph(state)
      .addNode('prepare', (s: z.infer<typeof Ask>, config: LangGraphRunnableConfig) => {
        config.writer?.({ progress: 0.5, label: 'prêt ✓' });
        return { note: `${s.amount} €` };
      })
      .addNode('ask', () => ({ note: interrupt<string>({ question: 'approve?', amount: 420 }) }))
      .addEdge(START, 'prepare')
      .addEdge('prepare', 'ask')
      .addEdge('ask', END),
});

const broken = new Workflow({
  name: 'broken',
  state: Text,
  graph: (state) =>
    new StateGraph(state)
      .addNode('boom', () => {
        throw new TypeError('secret: connection string postgres://u:pw@db');
      })
      .addEdge(START, 'boom')
      .addEdge('boom', END),
});

async function streamWorkflow(path: string, body: unknown) {
  const { deck } = await openTestDeck({ workflows: [shout, approve, broken] });
  const response = await deck.app({ log: () => {} }).request(path, postJson(body));
  expect(response.status).toBe(200);
  return response.text();
}

describe('POST /workflows/{name}?stream=true, byte for byte', () => {
  it("writes WIRE.md's frames: node updates, a null delta, done", async () => {
    const text = await streamWorkflow('/workflows/shout?stream=true', { text: 'hello', length: 5 });
    expect(text).toBe(WIRE.workflow.join(''));
  });

  it('writes custom values and the interrupt object in the same form', async () => {
    const text = await streamWorkflow('/workflows/approve?thread_id=t-1&stream=true', {
      amount: 420,
    });
    expect(text).toBe(
      'data: {"type": "custom", "data": {"progress": 0.5, "label": "pr\\u00eat \\u2713"}}\n\n' +
        'data: {"type": "node_update", "node": "prepare", "delta": {"note": "420 \\u20ac"}}\n\n' +
        'event: interrupt\ndata: {"type": "interrupt", "payload": {"question": "approve?", "amount": 420}, "thread_id": "t-1"}\n\n',
    );
  });

  it('ends with an error frame naming the exception type only', async () => {
    const text = await streamWorkflow('/workflows/broken?stream=true', { text: 'x' });
    expect(text).toBe('event: error\ndata: {"error": "TypeError"}\n\n');
  });
});

describe('POST /workflows/{name} of a run that fails, byte for byte', () => {
  it("answers 500 with 1.2.1's body, to which #41 adds run_id (the X-Run-Id of the response)", async () => {
    const { deck } = await openTestDeck({ workflows: [broken] });
    const response = await deck
      .app({ log: () => {} })
      .request('/workflows/broken', postJson({ text: 'x' }));
    expect(response.status).toBe(500);
    const runId = response.headers.get('x-run-id');
    expect(await response.text()).toBe(`{"detail":"internal error","run_id":"${runId}"}`);
  });
});
