/**
 * The inbox (`/ui/inbox`) answering a waiting workflow with its JSON editor, and held tool
 * calls with Approve and Reject, registered by ui.browser.test.ts in its own browser and
 * servers: a file of its own to keep that one short.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ScriptedModelServer } from '../../src/testing/index.js';
import { screenshotPath } from '../support/browser.js';
import { postJson } from '../support/http.js';
import { runStatus } from '../support/studio-pages.js';

export interface InboxContext {
  page: Page;
  model: ScriptedModelServer;
  /** The `test/fixtures/ui` project's server: `approval` asks, `refunder` holds its calls. */
  url: string;
  /** Start the `approval` workflow on `thread`; its run id once it waits. */
  startApproval(thread: string, amount?: number): Promise<string>;
  /** Console errors, minus those a test expects. */
  unexpectedErrors(expected?: RegExp[]): string[];
}

export function inboxTests(the: () => InboxContext) {
  it('answers a question with an answer schema through its form, after a 422 naming the field', async () => {
    const { page, url, unexpectedErrors } = the();
    const started = await fetch(
      `${url}/workflows/expense?thread_id=expense-1`,
      postJson({ employee: 'Ada', amount: 2400 }),
    );
    const runId = started.headers.get('x-run-id') ?? '';
    await started.text();
    await page.goto(`${url}/ui/inbox`);
    const card = page.locator(`article.card[data-run-id="${runId}"]`);
    const form = card.locator('form[data-shaped="true"]');
    await form.waitFor();
    expect(await card.locator('textarea').count()).toBe(0); // a form, not a JSON editor
    expect(await form.locator('label[for$="-approved"] .required').count()).toBe(1);
    expect(await form.locator('label[for$="-note"] .required').count()).toBe(0);
    expect(await form.locator('select[name="category"] option').allTextContents()).toEqual([
      'choose…',
      'travel',
      'meals',
      'equipment',
    ]);
    // A required field left empty is named before anything is sent.
    await form.getByRole('button', { name: 'Answer' }).click();
    await form.getByText('approved: required').waitFor();
    await form.locator('select[name="approved"]').selectOption('true');
    await form.locator('select[name="category"]').selectOption('travel');
    await form.locator('input[name="amount"]').fill('2400');
    await form.getByRole('button', { name: 'Answer' }).click();
    // The server's refusal names the field; the run still waits.
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/422 .*answer\.amount: too big/);
    await page.screenshot({ path: screenshotPath('ui-answer-form.png') });
    expect(await runStatus(url, runId)).toBe('waiting_human');
    await form.locator('input[name="amount"]').fill('1000');
    await form.locator('input[name="note"]').fill('capped at the limit');
    await form.getByRole('button', { name: 'Answer' }).click();
    const outcome = page.locator(`article.answered[data-run-id="${runId}"]`);
    await outcome.waitFor({ timeout: 15_000 });
    expect(await outcome.getAttribute('data-outcome')).toBe('completed');
    const final = (await outcome.locator('pre.json').textContent()) ?? '';
    expect(JSON.parse(final)).toMatchObject({ approved: true, category: 'travel', paid: 1000 });
    // The failed answer is a 422 the page logs as a failed request, nothing else.
    expect(unexpectedErrors([/status of 422/])).toEqual([]);
  }, 40_000);

  it('answers a waiting workflow from the inbox, and the run completes', async () => {
    const { page, url, startApproval, unexpectedErrors } = the();
    const runId = await startApproval('inbox-1', 120);
    await page.goto(`${url}/ui/inbox`);
    const card = page.locator(`article.card[data-run-id="${runId}"]`);
    await card.waitFor();
    const editor = card.getByLabel('Answer (JSON)');
    // Empty, never a copy of the question (#41): an untouched editor sends nothing.
    expect(await editor.inputValue()).toBe('');
    expect(await card.getByRole('button', { name: 'Answer' }).isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('ui-inbox.png') });
    await editor.fill('{"approved": tru');
    await card.getByText(/^Not JSON/).waitFor();
    expect(await card.getByRole('button', { name: 'Answer' }).isDisabled()).toBe(true);
    await editor.fill('{"approved": true}');
    await card.getByRole('button', { name: 'Answer' }).click();
    const outcome = page.locator(`article.answered[data-run-id="${runId}"]`);
    await outcome.waitFor({ timeout: 15_000 });
    expect(await outcome.getAttribute('data-outcome')).toBe('completed');
    expect(await outcome.textContent()).toContain('amount 120 approved');
    expect(await runStatus(url, runId)).toBe('completed');
    await page.goto(`${url}/ui/runs/${runId}`);
    await page.locator('[data-kind="run.completed"]').waitFor();
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it('rejects a held call through the form of its reason schema, which a rejection must fill', async () => {
    const { page, model, url, unexpectedErrors } = the();
    model.push(
      { toolCalls: [{ name: 'wire', arguments: { payee: 'eve', amount: 900 }, callId: 'call_w' }] },
      { text: 'Not wired.' },
    );
    const started = await fetch(
      `${url}/agents/wirer/chat`,
      postJson({ session_id: 'wire-1', message: 'Wire 900 to eve' }),
    );
    const runId = started.headers.get('x-run-id') ?? '';
    await started.text();
    await page.goto(`${url}/ui/inbox`);
    const card = page.locator(`article.card[data-run-id="${runId}"][data-call-id="call_w"]`);
    const reason = card.getByRole('group', { name: 'Reason to reject' });
    await reason.waitFor();
    await card.getByRole('button', { name: 'Approve' }).waitFor();
    // Rejecting without the required code names it, and sends nothing.
    await card.getByRole('button', { name: 'Reject' }).click();
    await reason.getByText('code: required').waitFor();
    expect(await runStatus(url, runId)).toBe('waiting_human');
    await reason.locator('select[name="code"]').selectOption({ label: 'fraud' });
    await reason.locator('input[name="note"]').fill('unknown payee');
    await card.getByRole('button', { name: 'Reject' }).click();
    const outcome = page.locator(
      `article.answered[data-run-id="${runId}"][data-outcome="completed"]`,
    );
    await outcome.waitFor({ timeout: 15_000 });
    expect(await outcome.textContent()).toContain('You rejected wire');
    expect(JSON.stringify(model.requests.at(-1)?.body)).toContain('unknown payee');
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);

  it('approves a held call and rejects the next with a reason from the inbox, with buttons', async () => {
    const { page, model, url, unexpectedErrors } = the();
    const refund = (order: string, amount: number, callId: string) => ({
      toolCalls: [{ name: 'refund', arguments: { order, amount }, callId }],
    });
    model.push(refund('A1', 80, 'call_r'), refund('B2', 900, 'call_r2'), {
      text: 'Refunded A1, not B2.',
    });
    const started = await fetch(
      `${url}/agents/refunder/chat`,
      postJson({ session_id: 'refund-1', message: 'Refund A1 and B2' }),
    );
    const runId = started.headers.get('x-run-id') ?? '';
    await started.text();
    expect(await runStatus(url, runId)).toBe('waiting_human');
    await page.goto(`${url}/ui/inbox`);
    const card = page.locator(`article.card[data-run-id="${runId}"][data-call-id="call_r"]`);
    await card.waitFor();
    expect(await card.locator('.card-head').textContent()).toContain('approval');
    expect(await card.locator('pre.json').first().textContent()).toContain('"tool": "refund"');
    expect(await card.locator('textarea').count()).toBe(0); // buttons, not a JSON editor
    await card.getByRole('button', { name: 'Approve' }).click();
    // The run's next held call takes the card's place at once.
    const next = page.locator(`article.card[data-run-id="${runId}"][data-call-id="call_r2"]`);
    await next.waitFor();
    expect(await next.locator('pre.json').first().textContent()).toContain('"B2"');
    await next.getByLabel('Reason to reject').fill('over the limit');
    await next.getByRole('button', { name: 'Reject' }).click();
    const outcome = page.locator(
      `article.answered[data-run-id="${runId}"][data-outcome="completed"]`,
    );
    await outcome.waitFor({ timeout: 15_000 });
    expect(await outcome.textContent()).toContain('You rejected refund');
    expect(await outcome.textContent()).toContain('Refunded A1, not B2.');
    // The model was told why, and only the approved call ran.
    expect(JSON.stringify(model.requests.at(-1)?.body ?? {})).toContain('over the limit');
    await page.goto(`${url}/ui/runs/${runId}`);
    await page.locator('[data-kind="run.completed"]').waitFor();
    const results = await page.locator('[data-kind="tool.call.started"] .pair').allTextContents();
    expect(results.join('\n')).toContain('refunded 80 EUR on A1');
    expect(results.join('\n')).not.toContain('refunded 900 EUR');
    expect(await page.locator('[data-kind="run.interrupted"]').first().textContent()).toContain(
      'Tool call refund waits for approval',
    );
    expect(await page.locator('[data-kind="run.resumed"]').allTextContents()).toEqual([
      expect.stringContaining('Resumed: the call was approved'),
      expect.stringContaining('over the limit'),
    ]);
    expect(unexpectedErrors()).toEqual([]);
  }, 40_000);
}
