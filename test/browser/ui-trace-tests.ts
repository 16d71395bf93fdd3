/**
 * The trace waterfall on a run's page (#41), registered by ui.browser.test.ts in its own
 * browser and servers: the bars of a real agent turn that calls a workflow as a tool (played
 * by the engine against the scripted model server), in order, the tool's bar linked to its
 * child run; and a model request's bar opening what was sent (instructions, messages, tools,
 * settings) and received. The real turn's first model bar opens on the request the engine recorded;
 * a second run, appended to the server's SQLite log by this file with its values stored once
 * per run as the recording does, pins every field of the request and response panel. Last, a long run
 * (appended too): only the waterfall's rows in view are in the document, and the timeline
 * shows its first and last entries, the rest a click away.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { TextBlock } from '../../src/core/blocks.js';
import type { NewEvent } from '../../src/core/events.js';
import { SqliteEventStore } from '../../src/stores/sqlite/index.js';
import { run, sleep } from '../../src/testing/event-store-events.js';
import type { ScriptedModelServer } from '../../src/testing/index.js';
import { screenshotPath } from '../support/browser.js';
import { waitFor } from '../support/studio-pages.js';

export interface TraceContext {
  page: Page;
  model: ScriptedModelServer;
  /** The `test/fixtures/ui` project's server: `planner` calls the `quote` workflow. */
  url: string;
  /** The SQLite file that server records its events in. */
  storePath: string;
  /** Start an agent turn as a streaming client would. */
  chat(
    agent: string,
    sessionId: string,
    message: string,
  ): Promise<{ runId: string; ended: Promise<string> }>;
  /** Console errors, minus those a test expects. */
  unexpectedErrors(expected?: RegExp[]): string[];
}

const rows = (page: Page) =>
  page
    .locator('.trace-row')
    .evaluateAll((all) =>
      all.map(
        (row) =>
          `${(row as HTMLElement).dataset.kind} ${row.querySelector('.trace-label')?.textContent}`,
      ),
    );

/** A weather turn's events as the model-call recording writes them, spread over ~0.4 s. */
async function appendRecordedTurn(storePath: string): Promise<string> {
  const r = run({ origin: 'helper', sessionId: 'trace-recorded' });
  const e = (kind: string, payload: unknown) => ({ ...r, kind, payload }) as NewEvent;
  const request = (callId: string, messages: string[], values: Record<string, unknown>) =>
    e('model.call.started', {
      callId,
      model: 'gpt-4o-mini',
      settings: { temperature: 0.2, toolChoice: 'auto' },
      instructions: 'v:instr',
      tools: ['v:lookup'],
      messages,
      values,
      detail: 'full',
    });
  const answer = (callId: string, output: unknown[], finishReason: string, requestId: string) =>
    e('model.call.completed', {
      callId,
      output,
      finishReason,
      inputTokens: 52,
      outputTokens: 9,
      latencyMs: 120,
      providerRequestId: requestId,
      error: null,
    });
  const usage = e('usage.reported', {
    model: 'gpt-4o-mini',
    requests: 1,
    inputTokens: 52,
    outputTokens: 9,
    totalTokens: 61,
    usd: 0.0000132,
  });
  const call = {
    type: 'function_call',
    name: 'lookup',
    call_id: 'call-w',
    arguments: '{"city":"Paris"}',
  };
  const store = new SqliteEventStore({ path: storePath });
  try {
    const steps: NewEvent[][] = [
      [
        e('run.started', { invocableType: 'agent', input: [new TextBlock('Weather in Paris?')] }),
        request('mc-1', ['v:ask'], {
          'v:instr': 'You answer questions about the weather.',
          'v:lookup': { type: 'function', name: 'lookup', parameters: { type: 'object' } },
          'v:ask': { role: 'user', content: 'Weather in Paris?' },
        }),
      ],
      [answer('mc-1', [call], 'tool_calls', 'req_w1'), usage],
      [e('tool.call.started', { callId: 'call-w', name: 'lookup', arguments: { city: 'Paris' } })],
      [
        e('tool.call.completed', {
          callId: 'call-w',
          name: 'lookup',
          output: 'sunny',
          error: null,
        }),
        request('mc-2', ['v:ask', 'v:call', 'v:result'], {
          'v:call': call,
          'v:result': { type: 'function_call_output', call_id: 'call-w', output: 'sunny' },
        }),
      ],
      [e('text.delta', { messageId: 'm1', text: 'It is sunny ' })],
      [
        e('text.delta', { messageId: 'm1', text: 'in Paris.' }),
        answer(
          'mc-2',
          [
            {
              type: 'message',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'It is sunny in Paris.' }],
            },
          ],
          'stop',
          'req_w2',
        ),
        usage,
        e('message.completed', {
          messageId: 'm1',
          role: 'assistant',
          content: [new TextBlock('It is sunny in Paris.')],
        }),
        e('run.completed', { output: [new TextBlock('It is sunny in Paris.')], usage: null }),
      ],
    ];
    for (const step of steps) {
      await store.append(step);
      await sleep(70); // the steps take time, as a run's do
    }
  } finally {
    await store.close();
  }
  return r.runId;
}

export function traceTests(the: () => TraceContext) {
  it('draws a real turn’s waterfall in order, its tool bar linked to the workflow it ran', async () => {
    const { page, model, url, chat, unexpectedErrors } = the();
    model.push(
      { toolCalls: [{ name: 'quote', arguments: { nights: 2 }, callId: 'call_t2' }] },
      { text: 'Two nights: 180.' },
    );
    const quoteRuns = async () =>
      (
        (await (await fetch(`${url}/runs?origin=quote&limit=50`)).json()) as {
          runs: { run_id: string }[];
        }
      ).runs.map((r) => r.run_id);
    const before = await quoteRuns();
    const { runId, ended } = await chat('planner', 'trace-real', 'Quote 2 nights');
    await ended;
    const childIds = (await quoteRuns()).filter((id) => !before.includes(id));
    expect(childIds).toHaveLength(1);
    await page.goto(`${url}/ui/runs/${runId}`);
    await page.locator('[data-kind="run.completed"]').waitFor();
    await page.getByTestId('trace').waitFor();
    // The run, the model's request for the tool, the tool (a workflow of its own), the answer.
    const drawn = await rows(page);
    expect(drawn.map((row) => row.split(' ')[0])).toEqual(['run', 'model', 'tool', 'model']);
    expect(drawn[2]).toBe('tool quote');
    const tool = page.locator('.trace-row[data-kind="tool"]');
    await page.waitForFunction(() =>
      document
        .querySelector('.trace-row[data-kind="tool"] .trace-meta')
        ?.textContent?.includes('child run'),
    );
    await tool.click();
    const detail = page.getByTestId('trace-detail');
    await detail.waitFor();
    expect(await detail.locator('pre.json').first().textContent()).toContain('"nights": 2');
    const child = await detail.locator('a').getAttribute('href');
    expect(child).toBe(`/ui/runs/${childIds[0]}`);
    // Each bar starts no earlier than the one above it, and the run's bar spans them all.
    const spans = await page
      .locator('.trace-bar')
      .evaluateAll((bars) =>
        bars.map((bar) => [
          Number.parseFloat((bar as HTMLElement).style.left),
          Number.parseFloat((bar as HTMLElement).style.width),
        ]),
      );
    expect(spans[0]).toEqual([0, 100]);
    for (let i = 2; i < spans.length; i++)
      expect(spans[i]?.[0]).toBeGreaterThanOrEqual(spans[i - 1]?.[0] ?? 0);
    // The streamed text is still assembled in the timeline below.
    expect(await page.locator('.entry.t-message .message-text').last().textContent()).toBe(
      'Two nights: 180.',
    );
    // The model's bars are the engine's own recorded requests: the first one opens on what the
    // model server received, the user's message and the tool offered.
    await page.locator('.trace-row[data-kind="model"]').first().click();
    const request = page.getByTestId('model-request');
    await request.waitFor();
    const sent = JSON.stringify(model.requests.at(-2)?.body);
    expect(sent).toContain('Quote 2 nights');
    expect(await request.locator('.trace-messages > li').last().textContent()).toContain(
      'Quote 2 nights',
    );
    expect(await request.locator('.trace-tools summary').allTextContents()).toContain('quote');
    expect(await page.getByTestId('model-response').textContent()).toContain('call_t2');
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);

  it('opens a model request’s bar: the instructions, the messages sent and the response', async () => {
    const { page, url, storePath, unexpectedErrors } = the();
    const runId = await appendRecordedTurn(storePath);
    await page.goto(`${url}/ui/runs/${runId}`);
    await page.locator('[data-kind="run.completed"]').waitFor();
    expect(await rows(page)).toEqual([
      'run Run',
      'model gpt-4o-mini',
      'tool lookup',
      'model gpt-4o-mini',
    ]);
    const second = page.locator('.trace-row[data-kind="model"]').nth(1);
    expect(await second.locator('.trace-meta').textContent()).toMatch(/ · 61 tok · \$0\.000013$/);
    await second.click();
    const request = page.getByTestId('model-request');
    await request.waitFor();
    expect(await request.locator('pre.message-text').textContent()).toBe(
      'You answer questions about the weather.',
    );
    // The user's message was stored with the first request: the second names it by digest.
    const messages = await request.locator('.trace-messages > li').allTextContents();
    expect(messages).toHaveLength(3);
    expect(messages[0]).toBe('userWeather in Paris?');
    expect(messages[1]).toContain('"name": "lookup"');
    expect(messages[2]).toContain('"output": "sunny"');
    expect(await request.locator('.trace-tools summary').allTextContents()).toEqual(['lookup']);
    expect(await request.locator('pre.json').last().textContent()).toContain('"temperature": 0.2');
    const response = page.getByTestId('model-response');
    expect(await response.textContent()).toContain('It is sunny in Paris.');
    const facts = await page.getByTestId('trace-detail').locator('.facts').textContent();
    expect(facts).toContain('Finish reasonstop');
    expect(facts).toContain('Tokens52 in, 9 out');
    expect(facts).toContain('Provider request idreq_w2');
    expect(await page.locator('.entry.t-message .message-text').textContent()).toBe(
      'It is sunny in Paris.',
    );
    await page.getByTestId('trace').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('ui-trace.png') });
    // A tool's bar shows its arguments and output.
    await page.locator('.trace-row[data-kind="tool"]').click();
    expect(await page.getByTestId('trace-detail').locator('pre.json').allTextContents()).toEqual([
      JSON.stringify({ city: 'Paris' }, null, 2),
      '"sunny"',
    ]);
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);

  it('opens a long run with only the rows in view: the waterfall virtualised, the timeline by its ends', async () => {
    const { page, url, storePath, unexpectedErrors } = the();
    const r = run({ origin: 'helper', sessionId: 'trace-long' });
    const e = (kind: string, payload: unknown) => ({ ...r, kind, payload }) as NewEvent;
    const store = new SqliteEventStore({ path: storePath });
    try {
      await store.append([
        e('run.started', { invocableType: 'agent', input: [new TextBlock('Book 300 rooms')] }),
        ...Array.from({ length: 300 }, (_, i) => [
          e('tool.call.started', { callId: `c${i}`, name: 'book', arguments: { room: i } }),
          e('tool.call.completed', {
            callId: `c${i}`,
            name: 'book',
            output: `room ${i}`,
            error: null,
          }),
        ]).flat(),
        e('run.completed', { output: [new TextBlock('Booked.')], usage: null }),
      ]);
    } finally {
      await store.close();
    }
    await page.goto(`${url}/ui/runs/${r.runId}`);
    await page.locator('[data-kind="run.completed"]').waitFor();
    const box = page.locator('.trace-rows');
    expect(await box.getAttribute('data-rows')).toBe('301');
    expect(await box.locator('.trace-row').count()).toBeLessThan(30);
    await box.evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await page.locator('.trace-row[data-bar="tool-c299"]').waitFor();
    expect(await page.locator('.trace-row[data-bar="tool-c0"]').count()).toBe(0);
    // 302 entries: the first 150 and the last 100, the 52 between a click away.
    expect(await page.locator('.timeline > li.entry').count()).toBe(250);
    await page.getByRole('button', { name: 'Show 52 more of the 52 entries in between' }).click();
    await waitFor(async () => (await page.locator('.timeline > li.entry').count()) === 302);
    expect(await page.locator('.entry-gap').count()).toBe(0);
    const seqs = await page
      .locator('.timeline > li.entry')
      .evaluateAll((entries) => entries.map((entry) => Number((entry as HTMLElement).dataset.seq)));
    expect(seqs).toEqual([0, ...Array.from({ length: 300 }, (_, i) => 1 + 2 * i), 601]);
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);
}
