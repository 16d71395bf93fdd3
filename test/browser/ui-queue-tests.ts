/**
 * Background runs (#40) in the run inspector: queued runs in the list under the `queued`
 * filter, a queued run's place in the queue (key, priority, position, attempts) on its page,
 * and Cancel taking it out of the queue before it starts. Registered by ui.browser.test.ts in
 * its own browser and servers (its main server has no queue worker, so runs stay queued).
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { screenshotPath } from '../support/browser.js';
import { postJson } from '../support/http.js';
import { waitFor } from '../support/studio-pages.js';

export interface QueueContext {
  page: Page;
  /** A server of the `test/fixtures/ui` project with `SERVICE_QUEUE_CONCURRENCY=0`. */
  url: string;
  /** Console errors, minus those a test expects. */
  unexpectedErrors(expected?: RegExp[]): string[];
}

export function queueTests(the: () => QueueContext) {
  it('lists queued runs, shows a queued run’s place, and cancels it before it starts', async () => {
    const { page, url, unexpectedErrors } = the();
    const enqueue = async (key: string, priority: number) => {
      const body = { agent: 'helper', input: 'later', key, priority };
      const response = await fetch(`${url}/runs`, postJson(body));
      expect(response.status).toBe(202);
      return ((await response.json()) as { run_id: string }).run_id;
    };
    const first = await enqueue('acme', 3);
    const second = await enqueue('acme', 3);
    await page.goto(`${url}/ui?status=queued`);
    await page.locator(`tr[data-run-id="${second}"][data-status="queued"]`).waitFor();
    await page.locator(`tr[data-run-id="${first}"][data-status="queued"]`).waitFor();
    expect(await page.locator('select[name="status"]').inputValue()).toBe('queued');

    await page.locator(`tr[data-run-id="${second}"] a`).first().click();
    const status = page.getByTestId('run-status');
    await waitFor(async () => (await status.textContent()) === 'queued');
    const fact = async (name: string) =>
      page.getByTestId(`queue-${name}`).locator('dd').textContent();
    await page.getByTestId('queue-key').waitFor();
    expect(await fact('key')).toBe('acme');
    expect(await fact('priority')).toBe('3');
    expect(await fact('position')).toBe('1 ahead');
    expect(await fact('attempts')).toBe('0');
    await page.locator('.entry').filter({ hasText: 'Queued under key acme' }).waitFor();
    expect(await page.getByRole('button', { name: 'Pause', exact: true }).isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('ui-queued.png') });

    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The run leaves the queue and never starts.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await waitFor(async () => (await status.textContent()) === 'cancelled', 5_000);
    expect(await page.getByTestId('queue-key').count()).toBe(0);
    const detail = (await (await fetch(`${url}/runs/${second}`)).json()) as { status: string };
    expect(detail.status).toBe('cancelled');
    expect(unexpectedErrors()).toEqual([]);
  }, 20_000);
}
