/**
 * Evals in the run inspector (#41), through the real API: runs ticked in the runs list become
 * a dataset (a new one, then one more run added to it), and two experiments over it (one
 * started from the dataset page's form, one through `POST /evals/experiments`, each with its
 * own variant, played against the scripted model server and scored by the fixture project's
 * `exact` code scorer) are compared item by item: both outputs side by side with their scores
 * passed or failed, links to each run, and the summary's means with the better side marked.
 * Registered by ui.browser.test.ts in its own browser and servers.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ScriptedModelServer } from '../../src/testing/index.js';
import { screenshotPath } from '../support/browser.js';
import { postJson } from '../support/http.js';
import { waitFor } from '../support/studio-pages.js';

export interface EvalsContext {
  page: Page;
  model: ScriptedModelServer;
  /** A server of the `test/fixtures/ui` project (its `scorers/exact`). */
  url: string;
  /** Start an agent turn as a streaming client would. */
  chat(
    agent: string,
    session: string,
    message: string,
  ): Promise<{ runId: string; ended: Promise<string> }>;
  /** Console errors, minus those a test expects. */
  unexpectedErrors(expected?: RegExp[]): string[];
}

const QUESTIONS = ['What is 2+2?', 'Two plus two?', 'Add two and two.'];

interface Experiment {
  id: string;
  status: string;
  results: {
    item_id: string;
    run_id: string;
    output: unknown;
    scores: Record<string, { value: number; passed: boolean }>;
  }[];
}

export function evalsTests(the: () => EvalsContext) {
  const dataset = 'sums'; // each test run has servers of its own, on a fresh store
  const source: string[] = [];

  it('makes a dataset of runs ticked in the runs list, then adds one more to it', async () => {
    const { page, model, url, chat, unexpectedErrors } = the();
    model.push(...QUESTIONS.map(() => ({ text: 'Four.' })));
    for (const [i, question] of QUESTIONS.entries()) {
      const { runId, ended } = await chat('helper', `evals-${i}`, question);
      await ended;
      source.push(runId);
    }
    await page.goto(`${url}/ui`);
    const tick = (runId: string) =>
      page.locator(`tr[data-run-id="${runId}"]`).getByRole('checkbox').check();
    await tick(source[0] as string);
    await tick(source[1] as string);
    await page.getByText('2 runs selected').waitFor();
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add 2 runs to a dataset' });
    await dialog.getByLabel('Name').fill(dataset);
    await dialog.getByLabel('Description (optional)').fill('The same sum, asked three ways');
    await dialog.getByRole('button', { name: 'Add to dataset' }).click();
    const added = page.getByRole('status').filter({ hasText: 'Added' });
    await added.filter({ hasText: `Added 2 items to ${dataset} (2 in all).` }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(0);

    // One more run, into the dataset that now exists.
    await tick(source[2] as string);
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const more = page.getByRole('dialog', { name: 'Add 1 run to a dataset' });
    // A name already taken is refused (409): the dialog stays, with the API's reason.
    await more.getByLabel('Name').fill(dataset);
    await more.getByRole('button', { name: 'Add to dataset' }).click();
    await more.getByRole('alert').waitFor();
    expect(await more.getByRole('alert').textContent()).toContain(dataset);
    await more.getByLabel('An existing dataset').check();
    await more.locator('select[name="dataset"]').selectOption(dataset);
    await more.getByRole('button', { name: 'Add to dataset' }).click();
    await added.filter({ hasText: `Added 1 item to ${dataset} (3 in all).` }).waitFor();
    expect(unexpectedErrors([/status of 409/])).toEqual([]);

    const detail = (await (await fetch(`${url}/evals/datasets/${dataset}`)).json()) as {
      items: { input: unknown; reference: unknown; run_id: string }[];
    };
    expect(detail.items.map((item) => item.run_id)).toEqual(source);
    expect(detail.items.map((item) => item.reference)).toEqual(['Four.', 'Four.', 'Four.']);

    await added.getByRole('link', { name: dataset }).click();
    await page.waitForURL(`${url}/ui/evals/datasets/${dataset}`);
    await page.getByText('The same sum, asked three ways').waitFor();
    const items = page.locator('table.eval-items tbody tr');
    await items.nth(2).waitFor();
    expect(await items.locator('td:nth-child(2)').allTextContents()).toEqual(QUESTIONS);
    for (const [i, runId] of source.entries()) {
      expect(await items.nth(i).locator(`a[href="/ui/runs/${runId}"]`).count()).toBe(1);
    }
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);

  it('runs two experiments with two variants and compares them item by item', async () => {
    const { page, model, url, unexpectedErrors } = the();
    const asked = model.requests.length;
    // Every item's run gets the same reply, whatever order the experiment plays them in.
    model.push(...QUESTIONS.map(() => ({ text: 'Four.' })));
    await page.goto(`${url}/ui/evals/datasets/${dataset}`);
    await page.getByText('No experiments on this dataset yet.').waitFor();
    await page.locator('summary', { hasText: 'Run experiment' }).click();
    const form = page.getByRole('form', { name: 'Run experiment' });
    await form.locator('select[name="target"]').selectOption('helper');
    await form.getByLabel('Name (optional)').fill('baseline');
    await form.locator('input[name="model"]').fill('model-a');
    await form.getByLabel('Model settings (JSON)').fill('{temperature: 0}');
    await form.getByRole('button', { name: 'Start experiment' }).click();
    await form.getByRole('alert').filter({ hasText: 'Settings are not JSON' }).waitFor();
    await form.getByLabel('Model settings (JSON)').fill('{"temperature": 0}');
    await form.getByRole('checkbox', { name: /exact/ }).check();
    await form.getByLabel('Concurrency (optional)').fill('2');
    await form.getByRole('button', { name: 'Start experiment' }).click();
    await form.getByRole('status').filter({ hasText: 'Started baseline' }).waitFor();
    // The list follows it until it completes.
    await page
      .locator('tr[data-experiment-id][data-status="completed"]')
      .waitFor({ timeout: 15_000 });

    model.push(...QUESTIONS.map(() => ({ text: '4' })));
    const started = await fetch(
      `${url}/evals/experiments`,
      postJson({
        dataset,
        agent: 'helper',
        name: 'digits',
        variant: { model: 'model-b', instructions: 'Answer with digits only.' },
        scorers: ['exact'],
      }),
    );
    expect(started.status).toBe(202);
    const { id: second } = (await started.json()) as { id: string };
    const read = async (id: string) =>
      (await (await fetch(`${url}/evals/experiments/${id}`)).json()) as Experiment;
    await waitFor(async () => (await read(second)).status === 'completed', 15_000);
    const models = model.requests.slice(asked).map((request) => request.body.model);
    expect(models).toEqual([...QUESTIONS.map(() => 'model-a'), ...QUESTIONS.map(() => 'model-b')]);

    await page.reload();
    const rows = page.locator('tr[data-experiment-id]');
    await rows.nth(1).waitFor();
    await page.screenshot({ path: screenshotPath('ui-evals-dataset.png'), fullPage: true });
    const first = (await rows.nth(1).getAttribute('data-experiment-id')) ?? '';
    await page.getByRole('checkbox', { name: 'Compare baseline' }).check();
    await page.getByRole('checkbox', { name: 'Compare digits' }).check();
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.waitForURL(`${url}/ui/evals/datasets/${dataset}/compare?a=${first}&b=${second}`);

    const mean = page.locator('tr[data-measure="exact mean"]');
    await mean.waitFor();
    expect(await mean.locator('[data-side="a"]').textContent()).toBe('1 (3 passed) better');
    expect(await mean.locator('[data-side="b"]').textContent()).toBe('0 (0 passed) worse');
    expect(await mean.locator('.delta').textContent()).toBe('−1');
    const won = page.locator('tr[data-measure="exact items won"] td');
    expect(await won.allTextContents()).toEqual(['3', '0', '0 tied']);

    const [a, b] = [await read(first), await read(second)];
    const items = page.locator('table.compare-items tbody tr');
    await items.nth(2).waitFor();
    expect(await items.count()).toBe(3);
    for (let i = 0; i < 3; i++) {
      const item = items.nth(i);
      expect(await item.locator('pre.value').first().textContent()).toBe(QUESTIONS[i]);
      const side = (name: string) => item.locator(`td[data-side="${name}"]`);
      expect(await side('a').locator('pre.output').textContent()).toBe('Four.');
      expect(await side('b').locator('pre.output').textContent()).toBe('4');
      expect(await side('a').locator('[data-scorer="exact"] .tag').allTextContents()).toEqual([
        'pass',
        'better',
      ]);
      expect(await side('b').locator('[data-scorer="exact"] .tag').allTextContents()).toEqual([
        'fail',
        'worse',
      ]);
      const runA = a.results[i]?.run_id ?? '';
      const runB = b.results[i]?.run_id ?? '';
      expect(await side('a').locator(`a[href="/ui/runs/${runA}"]`).count()).toBe(1);
      expect(await side('b').locator(`a[href="/ui/runs/${runB}"]`).count()).toBe(1);
    }
    await page.screenshot({ path: screenshotPath('ui-evals-compare.png'), fullPage: true });

    // An item's run is an ordinary run: its link opens it, with its score among its events.
    const runB = (i: number) => b.results[i]?.run_id ?? '';
    await items.nth(0).locator('td[data-side="b"] a[href^="/ui/runs/"]').click();
    await page.locator('[data-kind="score.recorded"]').waitFor();
    expect(await page.locator('[data-kind="score.recorded"]').textContent()).toContain(
      'Score exact: 0 (fail)',
    );

    // Deleted after a confirmation: the list no longer has it; the runs stay.
    await page.goto(`${url}/ui/evals/datasets/${dataset}`);
    await page.getByRole('button', { name: 'Delete dataset' }).click();
    await page
      .getByRole('dialog', { name: `Delete the dataset ${dataset}?` })
      .getByRole('button', { name: 'Delete dataset' })
      .click();
    await page.waitForURL(`${url}/ui/evals`);
    await page.getByText('No datasets yet.').waitFor();
    expect((await fetch(`${url}/evals/datasets/${dataset}`)).status).toBe(404);
    expect((await fetch(`${url}/runs/${runB(0)}`)).status).toBe(200);
    expect(unexpectedErrors()).toEqual([]);
  }, 60_000);
}
