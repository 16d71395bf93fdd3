import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatFrames, chatJson } from './chat-sse.js';
import { responsesFrames, responsesJson } from './responses-sse.js';
import {
  planStep,
  type ScriptedStep,
  type SseFrame,
  type StepPlan,
  StepQueue,
  sleep,
  streamDurationMs,
  summarize,
} from './script.js';

/**
 * One request received by a {@link ScriptedModelServer}.
 *
 * @example
 * ```ts
 * const [first] = server.requests;
 * expect(first?.path).toBe('/v1/responses');
 * expect(first?.body.tools[0].name).toBe('get_weather'); // chat completions: tools[0].function.name
 * ```
 */
export interface RecordedRequest {
  /** Request path, e.g. `/v1/responses` or `/v1/chat/completions`. */
  path: string;
  /** The parsed JSON body (model, input/messages, tools, stream, ...). */
  // biome-ignore lint/suspicious/noExplicitAny: a request body is free-form JSON that tests index into
  body: any;
  /** The request headers, lower-cased (e.g. `authorization: Bearer <key>`). */
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Options for {@link scriptedModelServer}.
 *
 * @example
 * ```ts
 * const server = await scriptedModelServer(steps, { port: 8787 });
 * ```
 */
export interface ScriptedModelServerOptions {
  /** Port to listen on (127.0.0.1). @default 0 (a free port) */
  port?: number;
}

/**
 * A running OpenAI-compatible scripted server; see {@link scriptedModelServer}.
 *
 * @example
 * ```ts
 * const server = await scriptedModelServer([{ text: 'hi' }]);
 * process.env.OPENAI_BASE_URL = server.url; // or pass server.url as baseURL
 * // ... exercise the code under test ...
 * server.assertConsumed();
 * await server.close();
 * ```
 */
export interface ScriptedModelServer extends AsyncDisposable {
  /** Base URL including `/v1`, for `OPENAI_BASE_URL` or a client's `baseURL`. */
  readonly url: string;
  /** Every model request received (including failed and unexpected ones), in order. */
  readonly requests: RecordedRequest[];
  /** Number of steps not yet consumed. */
  readonly remaining: number;
  /** Throw when steps remain unconsumed (the error says how many). */
  assertConsumed(): void;
  /** Append steps to the end of the script. */
  push(...steps: ScriptedStep[]): void;
  /** Stop listening and drop open connections. Safe to call more than once. */
  close(): Promise<void>;
}

interface Api {
  json(plan: StepPlan, body: object): object;
  frames(plan: StepPlan, body: object): SseFrame[];
  lastInput(body: Record<string, unknown>): unknown;
}

const lastOf = (value: unknown) => (Array.isArray(value) ? value.at(-1) : value);

const ROUTES: ReadonlyMap<string, Api> = new Map<string, Api>([
  [
    '/v1/responses',
    { json: responsesJson, frames: responsesFrames, lastInput: (body) => lastOf(body.input) },
  ],
  [
    '/v1/chat/completions',
    { json: chatJson, frames: chatFrames, lastInput: (body) => lastOf(body.messages) },
  ],
]);

/**
 * Start a real HTTP server (node:http on 127.0.0.1) that speaks enough of the OpenAI API for
 * the `openai` client and the agents `OpenAIResponsesModel` / `OpenAIChatCompletionsModel` to
 * run against it: `POST /v1/responses` and `POST /v1/chat/completions`, as JSON or as SSE when
 * the body has `stream: true`. Use it to test code that builds its own OpenAI client or model
 * provider (end to end, over HTTP) where an in-process {@link ScriptedModel} cannot be injected.
 *
 * Each request consumes one {@link ScriptedStep}, exactly like `ScriptedModel`. A step with
 * `error`, or a request after the script is exhausted, gets HTTP 500 `{ error: { message } }`
 * with `x-should-retry: false` (so the `openai` client does not retry it into the next step).
 * Unknown paths get a 404 JSON error and consume nothing.
 *
 * Text chunks go on the wire one SSE event each. A deck turn joins the ones that reach it in
 * one read (all of them, when the step has no `delayMs` and the server runs in the deck's
 * process), so a test that expects one `text.delta` per chunk gives the step a `delayMs`.
 *
 * @example
 * ```ts
 * import { Agent, Runner } from '@openai/agents-core';
 * import { OpenAIProvider } from '@openai/agents-openai';
 * import { scriptedModelServer } from 'agentdeck/testing';
 *
 * await using server = await scriptedModelServer([{ text: 'Hello from the script' }]);
 * const modelProvider = new OpenAIProvider({ apiKey: 'test', baseURL: server.url });
 * const runner = new Runner({ modelProvider, tracingDisabled: true });
 *
 * const result = await runner.run(new Agent({ name: 'greeter' }), 'Hi');
 * expect(result.finalOutput).toBe('Hello from the script');
 * expect(server.requests[0]?.path).toBe('/v1/responses');
 * server.assertConsumed();
 * ```
 *
 * @param steps - The script: one step per expected model request, in order.
 * @param options - See {@link ScriptedModelServerOptions}.
 */
export async function scriptedModelServer(
  steps: ScriptedStep[],
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const queue = new StepQueue('scriptedModelServer', steps);
  const requests: RecordedRequest[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const api = req.method === 'POST' ? ROUTES.get(path) : undefined;
    const raw = await readBody(req);
    if (api === undefined) {
      const message = `scriptedModelServer: unknown path ${req.method} ${path}`;
      return sendJson(res, 404, { error: { message, type: 'invalid_request_error' } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      const message = 'scriptedModelServer: request body is not JSON';
      return sendJson(res, 400, { error: { message, type: 'invalid_request_error' } });
    }
    requests.push({ path, body, headers: { ...req.headers } });
    // Each answer names its request, as OpenAI's `x-request-id` does: `req_<n>`, from 1.
    res.setHeader('x-request-id', `req_${requests.length}`);
    const step = queue.shift();
    if (step === undefined) {
      return sendError(res, queue.exhausted(summarize(api.lastInput(body))).message);
    }
    if (step.error !== undefined) return sendError(res, step.error);
    const plan = planStep(queue, step);
    if (body.stream === true) return writeSse(res, api.frames(plan, body), plan.delayMs);
    const wait = streamDurationMs(plan);
    if (wait > 0 && !(await waitUnlessGone(res, wait))) return;
    return sendJson(res, 200, api.json(plan, body));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, `scriptedModelServer: ${String(error)}`);
    });
  });
  await listen(server, options.port ?? 0);
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
    return closing;
  };

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get remaining() {
      return queue.remaining;
    },
    assertConsumed: () => queue.assertConsumed(),
    push: (...more: ScriptedStep[]) => queue.push(...more),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** HTTP 500 in OpenAI's error shape, marked not retryable for the `openai` client. */
function sendError(res: ServerResponse, message: string): void {
  const error = { message, type: 'server_error', param: null, code: null };
  sendJson(res, 500, { error }, { 'x-should-retry': 'false' });
}

/** Wait `ms` before a whole answer; `false` if the client went away meanwhile. */
async function waitUnlessGone(res: ServerResponse, ms: number): Promise<boolean> {
  const gone = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) gone.abort();
  };
  res.on('close', onClose);
  try {
    await sleep(ms, gone.signal);
    return true;
  } catch {
    return false;
  } finally {
    res.off('close', onClose);
  }
}

/** Write SSE frames, waiting `delayMs` between text deltas; stop if the client goes away. */
async function writeSse(res: ServerResponse, frames: SseFrame[], delayMs: number): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  let deltas = 0;
  for (const frame of frames) {
    if (frame.delta === true && deltas++ > 0) {
      try {
        await sleep(delayMs, gone.signal);
      } catch {
        return;
      }
    }
    if (gone.signal.aborted) return;
    const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
    res.write(`${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${data}\n\n`);
  }
  res.end();
}
