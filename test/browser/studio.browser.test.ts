/**
 * The studio (#21) in a real Chromium (Playwright, Debian's `chromium`) against real
 * `service-serve` processes and the scripted model server: the catalog lists what the
 * example project declares, a graph is drawn for each workflow (and on a workflow run's page,
 * with where the run is, live), the playground streams a chat with its tool call, answers a
 * held tool call inline, starts a workflow from a state checked against its schema (nothing
 * is sent while it fails) and answers it in place; sessions and threads; schedules paused and
 * resumed; the API-key prompt, and read-only mode showing no control. Every test fails on a
 * console error it does not expect.
 * Screenshots (ui-catalog.png, ui-playground.png, ui-graph.png) go to build/screenshots/, or to
 * docs/ under `npm run docs:screenshots`.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, scriptedModelServer } from '../../src/testing/index.js';
import {
  type BrowserSession,
  CHROMIUM,
  openBrowserPage,
  screenshotPath,
} from '../support/browser.js';
import { killServers, type ServerProcess } from '../support/server-process.js';
import {
  answerPieces,
  catalogOf,
  screenshotFromTop,
  serveWithModel,
  waitFor,
} from '../support/studio-pages.js';
import { heldCallTests } from './studio-held-call-tests.js';
import { sessionsIndexTests, timerTests } from './studio-history-tests.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/project/.agentdeck');
/** `payer` (its tool needs approval), `approval`, `checker` (fails on demand), a schedule. */
const STUDIO = join(ROOT, 'test/fixtures/studio/.agentdeck');
const skip = existsSync(CHROMIUM)
  ? null
  : `(skipped: no Chromium at ${CHROMIUM}; apt-get install chromium)`;

let session: BrowserSession;
let page: Page;
let model: ScriptedModelServer;
const servers: ServerProcess[] = [];
let example: string; // the example project
let studio: string; // the studio fixture
let readOnly: string; // the studio fixture, SERVICE_UI=read-only, SERVICE_API_KEYS set
const KEY = 'studio-test-key-7c2e';
let payerLog: string;

async function serve(project: string, env: Record<string, string> = {}): Promise<string> {
  const server = serveWithModel(project, model.url, env);
  servers.push(server);
  return server.url;
}

beforeAll(async () => {
  if (skip) return;
  model = await scriptedModelServer([]);
  payerLog = join(mkdtempSync(join(tmpdir(), 'agentdeck-studio-payer-')), 'payer.log');
  [example, studio, readOnly] = await Promise.all([
    serve(EXAMPLE),
    serve(STUDIO, { PAYER_LOG: payerLog }),
    serve(STUDIO, { SERVICE_UI: 'read-only', SERVICE_API_KEYS: KEY, PAYER_LOG: payerLog }),
    openBrowserPage().then((opened) => {
      session = opened;
    }),
  ]);
  page = session.page;
  await page.setViewportSize({ width: 1280, height: 900 });
  // The example's MCP server (`everything`, over stdio) is connected before its page is read.
  await waitFor(
    async () => (await catalogOf(example)).mcp_servers[0]?.status === 'connected',
    30_000,
  );
}, 90_000);

afterAll(async () => {
  await killServers(servers);
  await model?.close();
  await session?.close();
});

beforeEach(() => {
  session?.consoleErrors.splice(0);
});

const consoleErrors = () => session.consoleErrors.splice(0);

/** A full-page screenshot from the top (build/screenshots/, or docs/). */
const screenshot = (name: string) => screenshotFromTop(page, screenshotPath(name));

describe.skipIf(skip !== null)(`the studio ${skip ?? ''}`, () => {
  it('lists what the example project declares in the catalog', async () => {
    await page.goto(`${example}/ui/catalog`);
    const agent = page.locator('article[data-agent="concierge"]');
    await agent.waitFor();
    expect(await page.title()).toBe('Catalog · agentdeck');
    expect(await agent.locator('.instructions').textContent()).toContain(
      'You are the office concierge.',
    );
    expect(await agent.locator('.card-head').textContent()).toContain('the deck default');
    // Its tools with their parameter schemas, folded until asked for.
    const localTime = agent.locator('li.tool[data-tool="local_time"]');
    expect(await localTime.textContent()).toContain('The current date and time');
    expect(await localTime.locator('pre').isVisible()).toBe(false);
    await localTime.locator('summary').click();
    expect(await localTime.locator('pre').textContent()).toContain('"timeZone"');
    expect(await agent.locator('li.tool[data-tool="load_skill"]').count()).toBe(1);
    expect(await agent.locator('.b-approval').count()).toBe(1); // book_room asks
    expect(await agent.locator('a.chip').textContent()).toBe('house-rules');
    // Its MCP server, live, with the tools it serves.
    const mcp = agent.locator('.mcp-ref[data-mcp="everything"]');
    expect(await mcp.locator('.badge').textContent()).toBe('connected');
    expect(await mcp.textContent()).toContain('get_sum'); // the name the model is offered
    const server = page.locator('article[data-mcp="everything"]');
    expect(await server.locator('li.tool[data-tool="echo"]').count()).toBe(1);
    // The workflow: durable, its state schema, its graph.
    const workflow = page.locator('article[data-workflow="expense-approval"]');
    expect(await workflow.locator('.badge').first().textContent()).toBe('durable');
    expect(await workflow.locator('.card-head').textContent()).toContain('3 nodes');
    await workflow.locator('details.schema summary').click();
    const schema = JSON.parse((await workflow.locator('details.schema pre').textContent()) ?? '');
    expect(schema.required).toEqual(['employee', 'amount']);
    expect(await workflow.locator('svg.graph').count()).toBe(1);
    // The skill, its body folded; no schedules in the example.
    const skill = page.locator('article[data-skill="house-rules"]');
    expect(await skill.textContent()).toContain("The office's rules for expenses");
    await skill.locator('summary').click();
    expect(await skill.locator('pre').textContent()).toContain('Visitors sign in');
    expect(await page.locator('#schedules + p').textContent()).toBe('No schedules.');
    await screenshot('ui-catalog.png');
    // A name is a link to its runs.
    await agent.locator('a.item-name').click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(new URL(page.url()).search).toBe('?origin=concierge');
    expect(await page.locator('select[name="origin"]').inputValue()).toBe('concierge');
    expect(consoleErrors()).toEqual([]);
  }, 40_000);

  it('draws each workflow graph as SVG, its conditional edges dashed, guessed targets marked', async () => {
    for (const server of [example, studio]) {
      const catalog = await catalogOf(server);
      await page.goto(`${server}/ui/catalog`);
      for (const workflow of catalog.workflows) {
        const svg = page.locator(`svg.graph[data-workflow="${workflow.name}"]`);
        await svg.waitFor();
        const drawn = await svg
          .locator('g.node')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node')));
        expect(drawn.sort()).toEqual(workflow.graph.nodes.map((node) => node.id).sort());
        expect(await svg.locator('g.edge').count()).toBe(workflow.graph.edges.length);
        const conditional = workflow.graph.edges.filter((edge) => edge.conditional).length;
        expect(await svg.locator('g.edge.conditional').count()).toBe(conditional);
        if (conditional > 0) {
          const dashes = await svg
            .locator('g.edge.conditional path')
            .first()
            .evaluate((path) => getComputedStyle(path).strokeDasharray);
          expect(dashes).not.toBe('none');
        }
        // A branch without a path map: LangGraph lists every node; those edges say so.
        const guessed = workflow.graph.edges.filter((edge) => edge.guessed);
        expect(await svg.locator('g.edge.guessed').count()).toBe(guessed.length);
        const note = page.locator(`svg.graph[data-workflow="${workflow.name}"] + p.graph-note`);
        expect(await note.count()).toBe(guessed.length > 0 ? 1 : 0);
        // Layered from the start: start on top, end at the bottom, every node inside the box.
        const top = await svg.locator('g.node[data-node="__start__"] rect').getAttribute('y');
        const bottom = await svg.locator('g.node[data-node="__end__"] rect').getAttribute('y');
        expect(Number(top)).toBeLessThan(Number(bottom));
      }
      if (server === example) {
        // Its branch has a path map: approve goes to schedule or ends, never straight to pay.
        const fromApprove = await page
          .locator('svg.graph[data-workflow="expense-approval"] g.edge[data-source="approve"]')
          .evaluateAll((edges) => edges.map((edge) => edge.getAttribute('data-target')).sort());
        expect(fromApprove).toEqual(['__end__', 'schedule']);
      } else {
        // The checker's branch has none: its guessed targets are dotted, and a note names it.
        expect(
          await page.locator('svg.graph[data-workflow="checker"] g.edge.guessed').count(),
        ).toBeGreaterThan(0);
        expect(await page.locator('p.graph-note').getAttribute('data-guessed')).toBe('load');
      }
    }
    const example_ = await catalogOf(example);
    expect(example_.workflows.map((w) => w.name)).toEqual(['expense-approval']);
    expect(consoleErrors()).toEqual([]);
  }, 30_000);

  it('streams a chat token by token and shows its tool call inline', async () => {
    model.push(
      {
        text: Array.from({ length: 12 }, (_, i) => `tok${i} `),
        delayMs: 120,
        toolCalls: [
          { name: 'local_time', arguments: { timeZone: 'Europe/Paris' }, callId: 'call_t1' },
        ],
      },
      { text: ['It is ', 'tea time.'], delayMs: 50 },
    );
    await page.goto(`${example}/ui/playground?agent=concierge`);
    await page.locator('input[name="session"]').fill('studio-chat');
    await page.locator('#chat-message').fill('What time is it in Paris?');
    await page.locator('#chat-message').press('Enter');
    const turn = page.locator('li.turn').first();
    const firstText = turn.locator('.part-text').first();
    await waitFor(async () => ((await firstText.textContent()) ?? '').includes('tok2 '));
    expect((await firstText.textContent()) ?? '').not.toContain('tok11'); // still streaming
    const call = turn.locator('.tool-call[data-tool="local_time"]');
    await call.waitFor();
    expect(await call.locator('pre').first().textContent()).toContain('"Europe/Paris"');
    await page.locator('li.turn[data-status="done"]').waitFor();
    expect(await call.locator('pre').nth(1).textContent()).toMatch(/\d{2}:\d{2}/); // its result
    const texts = await turn.locator('.part-text').allTextContents();
    expect(await answerPieces(turn)).toEqual(['part-text', 'tool-call', 'part-text']);
    // The scripted usage: 10 tokens in and 5 out per model request.
    await waitFor(async () => (await turn.locator('.turn-usage').count()) === 1);
    expect(await turn.locator('.turn-usage').textContent()).toBe('30 tokens, 2 model requests');
    expect(texts).toEqual([
      Array.from({ length: 12 }, (_, i) => `tok${i} `).join(''),
      'It is tea time.',
    ]);
    // The run's page is one click away.
    const runs = (await (await fetch(`${example}/runs?session_id=studio-chat`)).json()) as {
      runs: { run_id: string }[];
    };
    expect(await turn.getAttribute('data-run-id')).toBe(runs.runs[0]?.run_id);
    expect(await turn.locator('.who a').getAttribute('href')).toBe(
      `/ui/runs/${runs.runs[0]?.run_id}`,
    );
    expect(consoleErrors()).toEqual([]);
  }, 40_000);

  it('shows schema errors before sending, sends nothing, then starts and answers a workflow in place', async () => {
    const posted: string[] = [];
    const watch = (request: { url(): string; method(): string }) => {
      if (request.method() === 'POST' && request.url().includes('/workflows/')) {
        posted.push(request.url());
      }
    };
    page.on('request', watch);
    try {
      await page.goto(`${example}/ui/playground?workflow=expense-approval`);
      const state = page.locator('#initial-state');
      await state.waitFor();
      // Prefilled from the schema: the required fields.
      expect(JSON.parse(await state.inputValue())).toEqual({ employee: '', amount: 1 });
      await state.fill('{"employee": 7, "amount": -3}');
      const errors = page.locator('ul.schema-errors li');
      await waitFor(async () => (await errors.count()) === 2);
      expect(await errors.allTextContents()).toEqual([
        'employee expected string, got integer',
        'amount not more than 0',
      ]);
      const start = page.getByRole('button', { name: 'Start' });
      expect(await start.isDisabled()).toBe(true);
      await state.fill('{"amount": 5');
      expect(await errors.first().textContent()).toContain('not JSON');
      // Even a submit forced past the disabled button sends nothing.
      await page.locator('form[aria-label="Start a workflow"]').evaluate((form) => {
        (form as HTMLFormElement).requestSubmit();
      });
      // A request the submit made would be seen before one the page makes after it.
      await Promise.all([
        page.waitForRequest((request) => request.url().endsWith('/health')),
        page.evaluate(() => fetch('/health').then((answer) => answer.text())),
      ]);
      expect(posted).toEqual([]);

      await state.fill('{"employee": "Ada", "amount": 420, "payInSeconds": 0}');
      await page.getByText('Matches the state schema.').waitFor();
      await page.locator('input[name="thread"]').fill('studio-expense');
      await start.click();
      const run = page.locator('section.followed-run');
      await run.locator('form[aria-label="Answer the question"]').waitFor();
      expect(posted).toHaveLength(1);
      expect(await run.locator('.inline-answer pre').first().textContent()).toContain(
        'Approve 420 EUR for Ada?',
      );
      await run.locator('g.node[data-node="approve"][data-mark="waiting"]').waitFor();
      // A form from the question's answer schema (#41), not a JSON editor.
      await run.locator('select[name="approved"]').selectOption('true');
      await run.getByRole('button', { name: 'Answer' }).click();
      // It sleeps on a timer until its payment time (now), then the served deck wakes it.
      await page.locator('section.followed-run[data-stands="completed"]').waitFor();
      const final = JSON.parse((await run.locator('pre.final-state').textContent()) ?? '');
      expect(final).toMatchObject({ employee: 'Ada', approved: true, paid: true });
      for (const node of ['approve', 'schedule', 'pay', '__end__']) {
        expect(await run.locator(`g.node[data-node="${node}"]`).getAttribute('data-mark')).toBe(
          'done',
        );
      }
      expect(await run.locator('.node-updates li').count()).toBe(3);
      expect(posted).toHaveLength(1);
    } finally {
      page.off('request', watch);
    }
    // A chat beside it on the screenshot: text, a tool call and its result.
    model.push(
      {
        text: ['Checking ', 'the clock. '],
        toolCalls: [
          { name: 'local_time', arguments: { timeZone: 'Asia/Tokyo' }, callId: 'call_t2' },
        ],
      },
      { text: ['In Tokyo it is ', 'evening.'] },
    );
    await page.locator('#chat-message').fill('And the time in Tokyo?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('li.turn[data-status="done"] .tool-call[data-tool="local_time"]').waitFor();
    await screenshot('ui-playground.png');
    expect(consoleErrors()).toEqual([]);
  }, 40_000);

  timerTests(() => ({ page, model, example, studio, consoleErrors }));

  heldCallTests(() => ({ page, model, studio, payerLog, consoleErrors }));

  it("shows where a workflow run is on its page's graph, live; and its thread", async () => {
    const response = await fetch(`${studio}/workflows/approval?thread_id=studio-graph`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 9 }),
    });
    await response.text();
    const runId = response.headers.get('x-run-id') ?? '';
    await page.goto(`${studio}/ui/runs/${runId}`);
    const graph = page.locator('svg.graph[data-workflow="approval"]');
    await graph.locator('g.node[data-node="ask"][data-mark="waiting"]').waitFor();
    expect(await graph.locator('g.node[data-node="finish"]').getAttribute('data-mark')).toBe('');
    await screenshot('ui-graph.png');
    await fetch(`${studio}/runs/${runId}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { approved: true } }),
    });
    // The page is not reloaded: the marks follow the run's events.
    await graph.locator('g.node[data-node="finish"][data-mark="done"]').waitFor();
    expect(await graph.locator('g.node[data-node="ask"]').getAttribute('data-mark')).toBe('done');
    expect(await graph.locator('g.node[data-node="__end__"]').getAttribute('data-mark')).toBe(
      'done',
    );
    expect(await page.getByTestId('run-history').getAttribute('href')).toBe(
      '/ui/threads/approval/studio-graph',
    );
    await page.getByRole('link', { name: "its thread's state" }).click();
    const values = page.locator('pre.thread-values');
    await values.waitFor();
    expect(JSON.parse((await values.textContent()) ?? '')).toMatchObject({
      amount: 9,
      approved: true,
      note: 'amount 9 approved',
    });
    expect(await page.getByTestId('thread-next').textContent()).toBe('nothing: it ended');
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor();
    expect(consoleErrors()).toEqual([]);
  }, 40_000);

  it('marks the node a run failed at, and wraps a long failure message', async () => {
    await page.goto(`${studio}/ui/playground`);
    const state = page.locator('#initial-state');
    expect(JSON.parse(await state.inputValue())).toEqual({ amount: 0 }); // approval's sample
    await page.locator('select[name="workflow"]').selectOption('checker');
    expect(JSON.parse(await state.inputValue())).toEqual({ fail: false }); // checker's
    const detail = `row-${'0123456789abcdef'.repeat(20)}`; // 324 characters, no space
    await state.fill(JSON.stringify({ fail: true, detail }));
    await page.locator('input[name="thread"]').fill('studio-fails');
    await page.getByRole('button', { name: 'Start' }).click();
    // The start answers 500 (the run failed), naming the run: the page follows it.
    const run = page.locator('section.followed-run[data-stands="failed"]');
    await run.waitFor();
    await run.locator('g.node[data-node="verify"][data-mark="failed"]').waitFor();
    expect(await run.locator('g.node[data-node="load"]').getAttribute('data-mark')).toBe('done');
    expect(await run.locator('p.error').textContent()).toBe(
      `Failed: Error verification failed: ${detail}`,
    );
    expect(await page.locator('form[aria-label="Start a workflow"] .error').count()).toBe(0);
    // Nothing runs off the right edge: here, nor on the run's page.
    const fitsWidth = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await fitsWidth()).toBe(true);
    await run.locator('.card-head a[href^="/ui/runs/"]').click();
    const message = page.locator('[data-kind="run.failed"] pre.bad');
    await message.waitFor();
    expect(await message.textContent()).toContain(detail);
    expect(await message.evaluate((pre) => pre.scrollWidth <= pre.clientWidth)).toBe(true);
    expect(await fitsWidth()).toBe(true);
    expect(consoleErrors().filter((text) => !/status of 500/.test(text))).toEqual([]);
  }, 30_000);

  it('pauses and resumes a schedule from the catalog, and badges a tool that needs approval', async () => {
    await page.goto(`${studio}/ui/catalog`);
    const pay = page.locator('article[data-agent="payer"] li.tool[data-tool="pay"]');
    await pay.waitFor();
    expect(await pay.locator('.badge').textContent()).toBe('needs approval');
    const row = page.locator('tr[data-schedule="nightly-approval"]');
    await row.waitFor();
    expect(await row.getAttribute('data-paused')).toBe('false');
    await row.getByRole('button', { name: 'Pause' }).click();
    await page.locator('tr[data-schedule="nightly-approval"][data-paused="true"]').waitFor();
    const listed = (await (await fetch(`${studio}/schedules`)).json()) as {
      schedules: { name: string; paused: boolean }[];
    };
    expect(listed.schedules.find((s) => s.name === 'nightly-approval')?.paused).toBe(true);
    await row.getByRole('button', { name: 'Resume' }).click();
    await page.locator('tr[data-schedule="nightly-approval"][data-paused="false"]').waitFor();
    expect(consoleErrors()).toEqual([]);
  }, 30_000);

  sessionsIndexTests(() => ({ page, model, example, studio, consoleErrors }));

  it('asks for the API key, then shows no control that changes anything in read-only mode', async () => {
    await page.goto(`${readOnly}/ui/catalog`);
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.getByLabel('Key').fill(KEY);
    await dialog.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('tr[data-schedule="nightly-approval"]').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.locator('header .mode').textContent()).toBe('read-only');
    expect(await page.locator('main button').count()).toBe(0);
    await page.goto(`${readOnly}/ui/playground`);
    await page.locator('#initial-state').waitFor();
    expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Start' }).count()).toBe(0);
    expect(await page.locator('#chat-message').count()).toBe(0);
    expect(consoleErrors().filter((text) => !/status of 401/.test(text))).toEqual([]);
  }, 30_000);
});
