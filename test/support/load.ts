/**
 * For the fault-injection tests: steady traffic against `service-serve` processes serving
 * test/fixtures/scale (workflow `approval`, agent `helper`), and a record of every answer, so
 * a test can say what clients saw during an outage and check afterwards that every run a
 * client was told about (a 200) is in the log. Each request names a fresh thread or session,
 * which is how a run is found again. Loops are bounded by time and by count.
 */
import { randomUUID } from 'node:crypto';
import type { ScriptedModelServer } from '../../src/testing/index.js';

/** `answer`: start a workflow on a fresh thread, then answer it (`Idempotency-Key`: the thread). */
export type LoadKind = 'workflow' | 'chat' | 'answer';

export interface Answer {
  kind: LoadKind;
  server: string;
  /** The thread (workflow) or session (chat) the request named. */
  id: string;
  /** When the request was sent, ms since the epoch. */
  at: number;
  ms: number;
  /** The HTTP status, or 0 when the request itself failed (connection refused...). */
  status: number;
  retryAfter: string | null;
  body: string;
}

export interface LoadOptions {
  servers: readonly string[];
  /** What to send; each worker picks in turn. @default ['workflow', 'chat'] */
  kinds?: readonly LoadKind[];
  /** Concurrent requests. @default 6 */
  workers?: number;
  /** Feeds the agent's replies (one step per chat sent); none: no chats. */
  model?: ScriptedModelServer;
  /** Wait after an answer other than 200, in ms. @default 50 */
  backoffMs?: number;
  /** Most requests in all, whatever the time. @default 20000 */
  maxRequests?: number;
  /** Time out each request after this long, in ms. @default 15000 */
  requestTimeoutMs?: number;
}

/** Traffic that runs until `stop()`; `answers` grows as responses come in. */
export function startLoad(options: LoadOptions) {
  const { servers, workers = 6, model, maxRequests = 20_000, requestTimeoutMs = 15_000 } = options;
  const backoffMs = options.backoffMs ?? 50;
  const kinds = options.kinds ?? (model ? ['workflow', 'chat'] : ['workflow']);
  const answers: Answer[] = [];
  let sent = 0;
  let stopped = false;
  const worker = async (index: number) => {
    for (let turn = 0; !stopped && sent < maxRequests; turn += 1) {
      sent += 1;
      const kind = kinds[(index + turn) % kinds.length] as LoadKind;
      const server = servers[(index + turn) % servers.length] as string;
      const answer = await send(kind, server, model, requestTimeoutMs);
      answers.push(answer);
      // A refused request is tried again soon, not at once: as a client would, short of Retry-After.
      if (answer.status !== 200) await new Promise((done) => setTimeout(done, backoffMs));
    }
  };
  const running = Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
  return {
    answers,
    /** Stop sending; resolves when every request in flight has its answer. */
    async stop(): Promise<Answer[]> {
      stopped = true;
      await running;
      return answers;
    },
  };
}

/** One request of `kind`; never throws. */
export async function send(
  kind: LoadKind,
  server: string,
  model: ScriptedModelServer | undefined,
  timeoutMs = 15_000,
): Promise<Answer> {
  const id = `${kind}-${randomUUID()}`;
  const at = Date.now();
  if (kind === 'answer') {
    // The start is judged as a workflow request; only a run that waits gets its answer.
    const start = await send('workflow', server, model, timeoutMs);
    if (start.status !== 200) return start;
    const answer = await sendAnswer(server, start.id, timeoutMs);
    return { ...answer, at, ms: Date.now() - at };
  }
  const request =
    kind === 'workflow'
      ? { url: `${server}/workflows/approval?thread_id=${id}`, body: { amount: 7 } }
      : { url: `${server}/agents/helper/chat`, body: { session_id: id, message: 'hi' } };
  if (kind === 'chat') model?.push({ text: 'ok' });
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await response.text();
    const retryAfter = response.headers.get('retry-after');
    return { kind, server, id, at, ms: Date.now() - at, status: response.status, retryAfter, body };
  } catch (error) {
    const body = error instanceof Error ? error.message : String(error);
    return { kind, server, id, at, ms: Date.now() - at, status: 0, retryAfter: null, body };
  }
}

/** Answer the thread `id` of workflow `approval` (`Idempotency-Key`: `id`); never throws. */
export async function sendAnswer(server: string, id: string, timeoutMs = 15_000): Promise<Answer> {
  const at = Date.now();
  const answer = { kind: 'answer' as const, server, id, at };
  try {
    const response = await fetch(`${server}/workflows/approval/${id}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': id },
      body: JSON.stringify({ value: { approved: true } }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await response.text();
    const retryAfter = response.headers.get('retry-after');
    return { ...answer, ms: Date.now() - at, status: response.status, retryAfter, body };
  } catch (error) {
    const body = error instanceof Error ? error.message : String(error);
    return { ...answer, ms: Date.now() - at, status: 0, retryAfter: null, body };
  }
}

/**
 * For the answers of a load (kind `answer`), once the backend is back: one told 200 must have
 * taken effect (its run completed); one told to retry (503, 507, no response) is sent again,
 * with its key, until it is 200 (bounded), and must then have taken effect. What fell short.
 */
export async function checkAnswers(
  answers: readonly Answer[],
  /** `true` once the answer's run completed; otherwise what is seen of it, for the report. */
  completed: (thread: string) => Promise<true | string>,
  timeoutMs = 10_000,
): Promise<{ notInEffect: Answer[]; notRetried: Answer[] }> {
  const notInEffect: Answer[] = [];
  const notRetried: Answer[] = [];
  for (const answer of answers.filter((a) => a.kind === 'answer')) {
    let last = answer;
    const deadline = Date.now() + timeoutMs;
    while (last.status !== 200 && [0, 409, 503, 507].includes(last.status)) {
      if (Date.now() > deadline) break;
      await new Promise((done) => setTimeout(done, 100));
      last = await sendAnswer(answer.server, answer.id);
    }
    if (last.status !== 200) {
      const seen = await completed(answer.id);
      notRetried.push({ ...last, body: `${last.body} (first: ${answer.status}; now: ${seen})` });
    } else {
      const seen = await completed(answer.id);
      if (seen !== true) notInEffect.push({ ...answer, body: `${answer.body} (now: ${seen})` });
    }
  }
  return { notInEffect, notRetried };
}

/** Whether the latest run on a thread has completed, asked of `server` (polled for 3 s at most). */
export function completedOn(server: string) {
  return async (thread: string): Promise<true | string> => {
    let seen = '';
    for (let attempt = 0; attempt < 30; attempt++) {
      const response = await fetch(`${server}/runs?session_id=${thread}`);
      const body = (await response.json()) as { runs?: { run_id: string; status: string }[] };
      if (body.runs?.[0]?.status === 'completed') return true;
      seen = JSON.stringify(body.runs?.map((run) => [run.run_id, run.status]));
      await new Promise((done) => setTimeout(done, 100));
    }
    return seen;
  };
}

/** Count answers by status: `{ 200: 40, 503: 12 }`. */
export function statusCounts(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

/**
 * Send one request of `kind` to `server` every `everyMs` until one answers 200; the ms
 * from `since` to that answer's arrival. Bounded by `timeoutMs`.
 */
export async function timeToFirstOk(
  server: string,
  kind: LoadKind,
  since: number,
  options: { model?: ScriptedModelServer; everyMs?: number; timeoutMs?: number } = {},
): Promise<number> {
  const { model, everyMs = 50, timeoutMs = 30_000 } = options;
  const deadline = since + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await send(kind, server, model, 5_000);
    if (answer.status === 200) return Date.now() - since;
    await new Promise((done) => setTimeout(done, everyMs));
  }
  throw new Error(`${server} did not answer a ${kind} with 200 within ${timeoutMs} ms`);
}
