/**
 * The studio's pages of what runs leave behind, registered by studio.browser.test.ts in its
 * own browser and servers (a file of its own to keep that one short): a workflow timer named
 * one way on every page, and the index of sessions and threads with the links between a run,
 * its session and its thread.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ScriptedModelServer } from '../../src/testing/index.js';

export interface HistoryContext {
  page: Page;
  model: ScriptedModelServer;
  /** The example project's server (`expense-approval` sleeps on a timer). */
  example: string;
  /** The studio fixture's server (`payer`, `approval`, the `nightly-approval` schedule). */
  studio: string;
  consoleErrors(): string[];
}

export function timerTests(the: () => HistoryContext) {
  it('names a timer one way, "Sleeping until <time>": the inbox, the run and its thread', async () => {
    const { page, example, consoleErrors } = the();
    const response = await fetch(`${example}/workflows/expense-approval?thread_id=studio-timer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ employee: 'Lin', amount: 300, payInSeconds: 3600 }),
    });
    await response.text();
    const runId = response.headers.get('x-run-id') ?? '';
    await page.goto(`${example}/ui/inbox`);
    const card = page.locator(`article.card[data-run-id="${runId}"]`);
    await card.locator('select[name="approved"]').selectOption('true');
    await card.getByRole('button', { name: 'Answer' }).click();
    const outcome = page.locator(`article.answered[data-run-id="${runId}"]`);
    await outcome.locator('.timer').waitFor();
    const wakeAt = (await outcome.locator('.timer time').getAttribute('datetime')) ?? '';
    expect(Date.parse(wakeAt) - Date.now()).toBeGreaterThan(3_000_000); // about an hour on
    const said = (await outcome.textContent()) ?? '';
    expect(said).toContain('Sleeping until');
    expect(said).not.toMatch(/asks again|agentdeck/i);
    // The run's page and its thread's page name it the same way, with the same time.
    await outcome.locator(`a[href="/ui/runs/${runId}"]`).click();
    const paused = page.locator('[data-kind="run.paused"] .entry-label .timer');
    await paused.waitFor();
    expect(await paused.locator('time').getAttribute('datetime')).toBe(wakeAt);
    await page.getByRole('link', { name: "its thread's state" }).click();
    const waiting = page.getByTestId('thread-waiting');
    await waiting.locator('.timer').waitFor();
    expect(await waiting.textContent()).toMatch(/^Sleeping until /);
    expect(await waiting.locator('time').getAttribute('datetime')).toBe(wakeAt);
    expect(consoleErrors()).toEqual([]);
  }, 30_000);
}

export function sessionsIndexTests(the: () => HistoryContext) {
  it('lists the sessions and threads, each linking its page, and a run links its own', async () => {
    const { page, model, studio, consoleErrors } = the();
    const post = (path: string, body: unknown) =>
      fetch(`${studio}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    model.push({ text: 'Hello.' });
    await (await post('/agents/payer/chat', { session_id: 'studio-index', message: 'Hi' })).text();
    // A schedule's fire: its long run id is shortened by what tells it apart, name and time.
    const fired = (await (await post('/schedules/nightly-approval/trigger', {})).json()) as {
      run_id: string;
    };
    await page.goto(`${studio}/ui/sessions`);
    const session = page.locator('table[data-kind="session"] tr[data-session="studio-index"]');
    await session.waitFor();
    expect(await session.locator('td').nth(1).textContent()).toBe('payer');
    const thread = page.locator(`table[data-kind="thread"] tr[data-session="${fired.run_id}"]`);
    expect(await thread.getAttribute('data-workflow')).toBe('approval');
    expect(await thread.locator('a').first().getAttribute('href')).toBe(
      `/ui/threads/approval/${fired.run_id}`,
    );
    expect(await thread.locator(`a[href="/ui/runs/${fired.run_id}"]`).textContent()).toMatch(
      /^nightly-approval \d\d-\d\d \d\d:\d\d(:\d\d)?Z$/,
    );
    // The session's last run, then from its page the session's.
    await session.locator('a[href^="/ui/runs/"]').click();
    const history = page.getByTestId('run-history');
    await history.waitFor();
    expect(await history.getAttribute('href')).toBe('/ui/sessions/studio-index');
    await history.click();
    await page.getByRole('heading', { name: 'Session studio-index' }).waitFor();
    expect(await page.locator('li.turn[data-turn="0"]').textContent()).toContain('Hello.');
    expect(consoleErrors()).toEqual([]);
  }, 30_000);
}
