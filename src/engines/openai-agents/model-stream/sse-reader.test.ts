/**
 * The deck's reader of model streams: SSE framing across reads, the client library's
 * errors, and deltas joined within one network read only (each enqueued chunk below is one
 * read). The client wiring is tested against the scripted server, over HTTP.
 */
import OpenAI, { APIError, InternalServerError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../../testing/index.js';
import { CHAT_DELTAS, type DeltaFormat, RESPONSES_DELTAS } from './delta-joins.js';
import { withQuickStreams } from './quick-streams.js';
import { SseDecoder } from './sse-decoder.js';
import { modelEvents } from './sse-reader.js';

/** A response whose body delivers `reads` one per read; `cancelled` says if it was cancelled. */
function bodyOf(reads: Array<string | Error>) {
  const state = { cancelled: false };
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const read = reads[next++];
      if (read === undefined) controller.close();
      else if (read instanceof Error) controller.error(read);
      else controller.enqueue(encoder.encode(read));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body), state };
}

async function eventsOf(reads: Array<string | Error>, format: DeltaFormat = RESPONSES_DELTAS) {
  const events: unknown[] = [];
  for await (const event of modelEvents(bodyOf(reads).response, format)) events.push(event);
  return events;
}

const delta = (text: string, seq: number, more: object = {}) =>
  `event: response.output_text.delta\ndata: ${JSON.stringify({
    type: 'response.output_text.delta',
    sequence_number: seq,
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta: text,
    logprobs: [],
    ...more,
  })}\n\n`;

describe('SseDecoder', () => {
  it('splits messages across chunks and line endings, skipping comments and empty blocks', () => {
    const decoder = new SseDecoder();
    expect(decoder.push(': keepalive\n\nevent: a\nda')).toEqual([]);
    expect(decoder.push('ta: {"x":1}\r')).toEqual([]);
    expect(decoder.push('\n\r\nid: 7\ndata: line one\ndata: line two\n\n')).toEqual([
      { event: 'a', data: '{"x":1}' },
      { event: undefined, data: 'line one\nline two' },
    ]);
    expect(decoder.push('data:no-space\r\rretry: 10\n\n')).toEqual([
      { event: undefined, data: 'no-space' },
    ]);
  });
});

describe('SseDecoder, at the edges', () => {
  it('finds a blank line split across reads, and keeps a large event whole over many reads', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: 1\n')).toEqual([]);
    expect(decoder.push('\ndata: 2\n')).toEqual([{ event: undefined, data: '1' }]);
    const big = 'x'.repeat(200_000);
    const text = `\ndata: ${big}\n\n`;
    const messages = [];
    for (let at = 0; at < text.length; at += 1_000) {
      messages.push(...decoder.push(text.slice(at, at + 1_000)));
    }
    expect(messages).toEqual([
      { event: undefined, data: '2' },
      { event: undefined, data: big },
    ]);
  });

  it('takes what is left at the end of the stream as a last message', () => {
    const lf = new SseDecoder();
    expect(lf.push('data: 1\n\ndata: 2\n')).toEqual([{ event: undefined, data: '1' }]);
    expect(lf.end()).toEqual([{ event: undefined, data: '2' }]);
    const cr = new SseDecoder();
    expect(cr.push('data: 1\r\rdata: 2\r')).toEqual([{ event: undefined, data: '1' }]);
    expect(cr.end()).toEqual([{ event: undefined, data: '2' }]);
    expect(new SseDecoder().end()).toEqual([]);
  });
});

describe('modelEvents', () => {
  it('decodes characters split across reads, and parses an event the stream ends without a blank line', async () => {
    const bytes = new TextEncoder().encode('data: {"text":"café"}\n\ndata: {"n":2}');
    const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of "é"
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, split));
        controller.enqueue(bytes.slice(split));
        controller.close();
      },
    });
    const events: unknown[] = [];
    for await (const event of modelEvents(new Response(body), RESPONSES_DELTAS)) events.push(event);
    expect(events).toEqual([{ text: 'café' }, { n: 2 }]);
  });

  it('hands on the events before a failure in the same read, then throws it', async () => {
    const events: unknown[] = [];
    const reading = (async () => {
      const reads = [`${delta('a', 1)}${delta('b', 2, { item_id: 'msg_2' })}data: {"half\n\n`];
      for await (const event of modelEvents(bodyOf(reads).response, RESPONSES_DELTAS)) {
        events.push(event);
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(SyntaxError);
    expect(events.map((event) => (event as { delta: string }).delta)).toEqual(['a', 'b']);
  });

  it('ends quietly once the request signal has aborted, whatever its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('paused between streamed items');
    const { response } = bodyOf([delta('a', 1), reason]);
    const events: unknown[] = [];
    for await (const event of modelEvents(response, RESPONSES_DELTAS, controller.signal)) {
      events.push(event);
      controller.abort(reason); // the read that follows fails with the abort's reason
    }
    expect(events).toHaveLength(1);
    const before = bodyOf([delta('a', 1)]);
    for await (const _ of modelEvents(before.response, RESPONSES_DELTAS, controller.signal)) {
      throw new Error('nothing is read after the abort');
    }
    expect(before.state.cancelled).toBe(true);
  });

  it('fails as the client does on a response without a body, or an event without data', async () => {
    const reading = modelEvents(new Response(null), RESPONSES_DELTAS).next();
    await expect(reading).rejects.toThrow('Attempted to iterate over a response with no body');
    await expect(eventsOf(['event: error\n\n'])).rejects.toBeInstanceOf(SyntaxError);
  });

  it('joins the deltas of one text that arrive in one read, keeping the last sequence number', async () => {
    const events = await eventsOf([
      `${delta('Hel', 1)}${delta('lo', 2)}${delta(' there', 3)}`,
      delta('!', 4),
      'event: response.output_text.done\ndata: {"type":"response.output_text.done","text":"Hello there!"}\n\n',
    ]);
    expect(events).toEqual([
      expect.objectContaining({ delta: 'Hello there', sequence_number: 3, logprobs: [] }),
      expect.objectContaining({ delta: '!', sequence_number: 4 }),
      { type: 'response.output_text.done', text: 'Hello there!' },
    ]);
  });

  it('keeps apart deltas of different parts, items or kinds, and joins log probabilities', async () => {
    const logprob = (token: string) => [{ token, logprob: -0.1, bytes: [], top_logprobs: [] }];
    const events = await eventsOf([
      delta('a', 1) +
        delta('b', 2, { content_index: 1 }) +
        delta('c', 3, { item_id: 'msg_2', content_index: 1 }) +
        delta('d', 4, { item_id: 'msg_2', content_index: 1, type: 'response.refusal.delta' }) +
        delta('e', 5, { logprobs: logprob('e') }) +
        delta('f', 6, { logprobs: logprob('f') }),
    ]);
    expect(events.map((event) => (event as { delta: string }).delta)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'ef',
    ]);
    expect((events[4] as { logprobs: unknown[] }).logprobs).toEqual([
      ...logprob('e'),
      ...logprob('f'),
    ]);
  });

  it('joins chat chunks that carry only text of one choice', async () => {
    const chunk = (delta: object, more: object = {}) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: null }],
        ...more,
      })}\n\n`;
    const call = { tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '' } }] };
    const events = await eventsOf(
      [
        chunk({ role: 'assistant', content: '' }) +
          chunk({ content: 'Tues' }) +
          chunk({ content: 'day' }) +
          chunk(call) +
          chunk({ content: 'x' }, { usage: { total_tokens: 3 } }) +
          'data: [DONE]\n\n',
      ],
      CHAT_DELTAS,
    );
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({
      choices: [{ delta: { role: 'assistant', content: 'Tuesday' } }],
    });
    expect(events[1]).toMatchObject({ choices: [{ delta: call }] });
  });

  it('ends at [DONE] and stops reading the body', async () => {
    const { response, state } = bodyOf(['data: {"n":1}\n\ndata: [DONE]\n\ndata: {"n":2}\n\n', 'x']);
    const events: unknown[] = [];
    for await (const event of modelEvents(response, RESPONSES_DELTAS)) events.push(event);
    expect(events).toEqual([{ n: 1 }]);
    expect(state.cancelled).toBe(true);
  });

  it('stops reading the body when its reader stops', async () => {
    const { response, state } = bodyOf([delta('a', 1), delta('b', 2)]);
    for await (const _ of modelEvents(response, RESPONSES_DELTAS)) break;
    expect(state.cancelled).toBe(true);
  });

  it('throws the client library errors: error events, error payloads, malformed JSON', async () => {
    const failed = (reads: string[]) =>
      eventsOf(reads).then(
        () => null,
        (error: unknown) => error,
      );
    const errorEvent = await failed(['event: error\ndata: {"error":{"message":"overloaded"}}\n\n']);
    expect(errorEvent).toBeInstanceOf(APIError);
    expect((errorEvent as Error).message).toBe('overloaded');
    const errorPayload = await failed(['data: {"error":{"message":"bad key","code":"k"}}\n\n']);
    expect(errorPayload).toMatchObject({ message: 'bad key', code: 'k' });
    expect(errorPayload).toBeInstanceOf(APIError);
    expect(await failed(['data: {"half\n\n'])).toBeInstanceOf(SyntaxError);
    const body = bodyOf([`${delta('a', 1)}event: error\ndata: {"error":{"message":"x"}}\n\n`, 'x']);
    const cut = (async () => {
      for await (const _ of modelEvents(body.response, RESPONSES_DELTAS));
    })();
    await expect(cut).rejects.toBeInstanceOf(APIError);
    expect(body.state.cancelled).toBe(true);
  });

  it('ends quietly when the request is aborted, and passes other failures on', async () => {
    const abort = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    expect(await eventsOf([delta('a', 1), abort])).toHaveLength(1);
    await expect(eventsOf([delta('a', 1), new TypeError('terminated')])).rejects.toThrow(
      'terminated',
    );
  });
});

describe('withQuickStreams, over HTTP', () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const clientOf = (url: string) =>
    withQuickStreams(new OpenAI({ apiKey: 'sk-test', baseURL: url, maxRetries: 0 }));

  it('reads streamed responses itself, and leaves other requests to the client', async () => {
    server = await scriptedModelServer([
      { text: ['one ', 'two'] },
      { text: 'whole' },
      { text: ['a', 'b'] },
    ]);
    const client = clientOf(server.url);
    const request = { model: 'gpt-4o', input: 'hi', stream: true } as const;
    const { data, response, request_id } = await client.responses.create(request).withResponse();
    expect(response.status).toBe(200);
    expect(request_id).toBe('req_1'); // the scripted server names each request
    const types: string[] = [];
    for await (const event of data) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.filter((type) => type === 'response.output_text.delta')).toHaveLength(1);
    expect(types.at(-1)).toBe('response.completed');

    const whole = await client.responses.create({ model: 'gpt-4o', input: 'hi' });
    expect(whole.output_text).toBe('whole');

    const chunks = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('ab');
    server.assertConsumed();
  });

  it("keeps the client's errors for a failed request", async () => {
    server = await scriptedModelServer([{ error: 'upstream overloaded' }]);
    const failed = clientOf(server.url)
      .responses.create({ model: 'gpt-4o', input: 'hi', stream: true })
      .withResponse();
    await expect(failed).rejects.toBeInstanceOf(InternalServerError);
    await expect(failed).rejects.toThrow('upstream overloaded');
  });
});
