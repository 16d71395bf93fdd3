/**
 * A front end on another origin calling `service-serve`, in a real Chromium (Playwright and
 * Debian's `chromium` package): with CORS off a page cannot start a run, neither with a JSON
 * `fetch` (its preflight is refused) nor with a `no-cors` forgery (`text/plain`, no preflight);
 * with its origin allowed it can, and reads `X-Run-Id`; an `EventSource` on a finished run
 * stops reconnecting; and one whose connection drops mid-run reconnects with `Last-Event-ID`
 * and misses nothing. Fails on any console error a test did not expect. Its screenshot goes
 * to build/screenshots/ (docs/ under `npm run docs:screenshots`).
 */

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import {
  type BrowserSession,
  CHROMIUM,
  openBrowserPage,
  screenshotPath,
} from '../support/browser.js';
import { cuttableProxy } from '../support/cuttable-proxy.js';
import { type ServerProcess, startServer } from '../support/server-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROJECT = join(ROOT, 'test/fixtures/scale/.agentdeck');
const skip = existsSync(CHROMIUM)
  ? null
  : `(skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`;

let session: BrowserSession;
let model: ScriptedModelServer;
const servers: ServerProcess[] = [];
let closed: string; // CORS off
let open: string; // the page's origin allowed

/** Start a server in a directory of its own (its own SQLite file). */
async function serve(env: Record<string, string>): Promise<string> {
  const server = startServer(
    PROJECT,
    { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test', ...env },
    mkdtempSync(join(tmpdir(), 'agentdeck-browser-')),
  );
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  if (skip) return;
  session = await openBrowserPage();
  model = await scriptedModelServer([]);
  [closed, open] = await Promise.all([serve({}), serve({ SERVICE_CORS_ORIGINS: session.origin })]);
}, 60_000);

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await model?.close();
  await session?.close();
});

/** The runs a server has on `thread` (read from Node: no browser involved). */
async function runsOn(
  server: string,
  thread: string,
): Promise<{ run_id: string; status: string }[]> {
  const body = (await (await fetch(`${server}/runs?session_id=${thread}`)).json()) as {
    runs: { run_id: string; status: string }[];
  };
  return body.runs;
}

/** Console errors, minus those a test expects (Chromium reports a refused CORS request so). */
function unexpectedErrors(expected: RegExp[] = []): string[] {
  return session.consoleErrors.splice(0).filter((text) => !expected.some((re) => re.test(text)));
}

describe.skipIf(skip !== null)(`a front end on another origin ${skip ?? ''}`, () => {
  it('cannot start a run while CORS is off: its JSON fetch is refused at the preflight', async () => {
    const outcome = await session.page.evaluate(async (server) => {
      try {
        const response = await fetch(`${server}/workflows/approval?thread_id=page-json`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 5 }),
        });
        return `answered ${response.status}`;
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    }, closed);
    expect(outcome).toBe('refused: Failed to fetch');
    expect(await runsOn(closed, 'page-json')).toEqual([]);
    expect(unexpectedErrors([/blocked by CORS policy/, /Failed to load resource/])).toEqual([]);
  });

  it('cannot start one with a no-cors forgery (a text/plain body, no preflight) either', async () => {
    const outcome = await session.page.evaluate(async (server) => {
      const response = await fetch(`${server}/workflows/approval?thread_id=page-forged`, {
        method: 'POST',
        mode: 'no-cors',
        body: JSON.stringify({ amount: 5 }),
      });
      return response.type; // opaque: the page learns nothing, and the server started nothing
    }, closed);
    expect(outcome).toBe('opaque');
    expect(await runsOn(closed, 'page-forged')).toEqual([]);
    // Chromium logs the 4xx of the opaque request; nothing else may be logged.
    expect(
      unexpectedErrors([/Failed to load resource: the server responded with a status of 4(03|15)/]),
    ).toEqual([]);
  });

  it('starts one when its origin is allowed, and reads the run id from X-Run-Id', async () => {
    const outcome = await session.page.evaluate(async (server) => {
      const response = await fetch(`${server}/workflows/approval?thread_id=page-allowed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 5 }),
      });
      return {
        status: response.status,
        runId: response.headers.get('x-run-id'),
        body: await response.json(),
      };
    }, open);
    const [run] = await runsOn(open, 'page-allowed');
    expect(outcome).toEqual({
      status: 200,
      runId: run?.run_id,
      body: {
        type: 'interrupt',
        payload: { question: 'approve?', amount: 5 },
        thread_id: 'page-allowed',
      },
    });
    expect(unexpectedErrors()).toEqual([]);
    await session.page.evaluate(
      (shown) => {
        document.body.innerHTML = '<h1>front end</h1><pre></pre>';
        (document.querySelector('pre') as HTMLElement).textContent = shown;
      },
      `POST /workflows/approval from ${session.origin}\nX-Run-Id: ${outcome.runId}\n${JSON.stringify(outcome.body, null, 2)}`,
    );
    await session.page.screenshot({ path: screenshotPath('browser-cross-origin.png') });
  });

  it('stops an EventSource on a finished run after its last event (no reconnecting every 3 s)', async () => {
    model.push({ text: 'done' });
    const started = await fetch(`${open}/agents/helper/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'es-finished', message: 'hi' }),
    });
    const runId = started.headers.get('x-run-id');
    const seen = await session.page.evaluate(
      ({ server, runId }) =>
        new Promise<{ kinds: string[]; opens: number; state: number }>((done) => {
          const kinds: string[] = [];
          let opens = 0;
          const source = new EventSource(`${server}/runs/${runId}/events`);
          source.onopen = () => {
            opens += 1;
          };
          source.onmessage = (message) => kinds.push(JSON.parse(message.data).kind);
          // Closed by the server's 204 on the reconnect: readyState 2, no further attempts.
          source.onerror = () => {
            if (source.readyState === EventSource.CLOSED)
              done({ kinds, opens, state: source.readyState });
          };
          setTimeout(() => done({ kinds, opens, state: source.readyState }), 8_000);
        }),
      { server: open, runId },
    );
    expect(seen.state).toBe(2);
    expect(seen.opens).toBe(1);
    expect(seen.kinds.at(0)).toBe('run.started');
    expect(seen.kinds.at(-1)).toBe('run.completed');
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);

  it('reconnects an EventSource whose connection drops mid-run with Last-Event-ID, missing nothing', async () => {
    const proxy = await cuttableProxy(new URL(open).port);
    try {
      model.push({ text: Array.from({ length: 24 }, (_, i) => `word${i} `), delayMs: 250 });
      const started = await fetch(`${open}/agents/helper/chat?stream=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: 'es-reconnect', message: 'talk' }),
      });
      const runId = started.headers.get('x-run-id');
      const reading = started.text(); // read the chat to its end, as its client would
      const tail = session.page.evaluate(
        ({ server, runId }) =>
          new Promise<{ seqs: number[]; kinds: string[]; opens: number }>((done) => {
            const seqs: number[] = [];
            const kinds: string[] = [];
            let opens = 0;
            const source = new EventSource(`${server}/runs/${runId}/events`);
            source.onopen = () => {
              opens += 1;
            };
            source.onmessage = (message) => {
              seqs.push(Number(message.lastEventId));
              const kind = JSON.parse(message.data).kind as string;
              kinds.push(kind);
              if (kind === 'run.completed') {
                source.close();
                done({ seqs, kinds, opens });
              }
            };
            setTimeout(() => done({ seqs, kinds, opens }), 25_000);
          }),
        { server: proxy.url, runId },
      );
      await new Promise((wait) => setTimeout(wait, 1_500));
      proxy.cut(); // mid-run: the browser sees its connection drop
      const seen = await tail;
      await reading;
      expect(seen.opens).toBe(2);
      expect(seen.kinds.at(-1)).toBe('run.completed');
      expect(seen.seqs).toEqual(seen.seqs.map((_, i) => i));
      expect(
        unexpectedErrors([
          /ERR_EMPTY_RESPONSE|ERR_CONNECTION|net::ERR_INCOMPLETE_CHUNKED_ENCODING/,
        ]),
      ).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 40_000);
});
