/**
 * Try a change on a recorded run (#41) in the run inspector: "Replay with changes" on an
 * agent run's page reaches the model with the new model, instructions and settings and opens
 * the replay, whose header links its source; on a durable thread's page, "Fork from here"
 * with an edited state plays a new thread from that checkpoint, the source thread unchanged.
 * Registered by ui.browser.test.ts in its own browser and servers.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ScriptedModelServer } from '../../src/testing/index.js';
import { screenshotPath } from '../support/browser.js';
import { postJson } from '../support/http.js';
import { waitFor } from '../support/studio-pages.js';

export interface ReplayContext {
  page: Page;
  model: ScriptedModelServer;
  /** A server of the `test/fixtures/ui` project. */
  url: string;
  /** Console errors, minus those a test expects. */
  unexpectedErrors(expected?: RegExp[]): string[];
}

export function replayTests(the: () => ReplayContext) {
  it('replays a turn with changes from its page, and forks a thread from a checkpoint with an edited state', async () => {
    const { page, model, url, unexpectedErrors } = the();
    model.push({ text: 'Hello there.' });
    const chat = await fetch(
      `${url}/agents/helper/chat`,
      postJson({ session_id: 'replay-ui', message: 'Hi' }),
    );
    expect(chat.status).toBe(200);
    const source = chat.headers.get('x-run-id') ?? '';
    await chat.json();

    await page.goto(`${url}/ui/runs/${source}`);
    await page.getByRole('button', { name: 'Replay with changes' }).click();
    const form = page.getByRole('form', { name: 'Replay with changes' });
    await form.getByLabel('Model', { exact: true }).fill('gpt-replayed');
    await form.getByLabel('Instructions').fill('Answer in French.');
    await form.getByLabel('Model settings (JSON)').fill('{"temperature": 0}');
    const sent = model.requests.length;
    model.push({ text: 'Bonjour.' });
    await form.getByRole('button', { name: 'Replay', exact: true }).click();
    await page.waitForURL(
      (at) => at.pathname.startsWith('/ui/runs/') && !at.pathname.endsWith(source),
    );
    const derived = page.getByTestId('derived-from');
    await derived.waitFor();
    expect(await derived.textContent()).toContain(`Replay of${source}`);
    await waitFor(async () => (await page.getByTestId('run-status').textContent()) === 'completed');
    await page.screenshot({ path: screenshotPath('ui-replay.png') });
    const request = model.requests.slice(sent)[0]?.body as Record<string, unknown>;
    expect(request).toMatchObject({ model: 'gpt-replayed', temperature: 0 });
    expect(JSON.stringify(request.messages)).toContain('Answer in French.');
    await derived.getByRole('link').click();
    await page.waitForURL(`${url}/ui/runs/${source}`);

    const thread = `fork-ui-${Date.now()}`;
    const started = await fetch(
      `${url}/workflows/approval?thread_id=${thread}`,
      postJson({ amount: 5 }),
    );
    await started.text();
    const answered = await fetch(
      `${url}/workflows/approval/${thread}/resume`,
      postJson({ value: { approved: true } }),
    );
    expect(answered.status).toBe(200);
    await page.goto(`${url}/ui/threads/approval/${thread}`);
    const asking = page.getByTestId('checkpoints').locator('li').filter({ hasText: 'next: ask' });
    await asking.getByRole('button', { name: 'Fork from here' }).click();
    const editor = page
      .getByRole('form', { name: 'Fork from this checkpoint' })
      .getByRole('textbox');
    expect(JSON.parse(await editor.inputValue())).toMatchObject({ amount: 5 });
    await editor.fill('{"amount": 99}');
    await page.getByRole('button', { name: 'Fork', exact: true }).click();
    const forked = page.getByTestId('forked');
    await forked.waitFor();
    expect(await forked.textContent()).toContain('"amount": 99');
    await page.screenshot({ path: screenshotPath('ui-fork.png') });
    const sourceState = (await (await fetch(`${url}/threads/approval/${thread}`)).json()) as {
      values: Record<string, unknown>;
    };
    expect(sourceState.values).toMatchObject({ amount: 5, approved: true });
    expect(unexpectedErrors()).toEqual([]);
  }, 30_000);
}
