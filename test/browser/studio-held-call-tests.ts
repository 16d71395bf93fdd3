/**
 * The studio's held tool calls answered inline in the playground (approved, rejected with a
 * reason, two in one turn), registered by studio.browser.test.ts in its own browser and
 * servers: a file of its own to keep that one short.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { ScriptedModelServer } from '../../src/testing/index.js';
import { answerPieces, waitFor } from '../support/studio-pages.js';

export interface HeldCallContext {
  page: Page;
  model: ScriptedModelServer;
  /** The studio fixture's server, whose `payer` agent's tool needs approval. */
  studio: string;
  /** Where that tool writes each payment it makes. */
  payerLog: string;
  consoleErrors(): string[];
}

export function heldCallTests(the: () => HeldCallContext) {
  it('answers a held tool call inline: approved, the turn completes', async () => {
    const { page, model, studio, payerLog, consoleErrors } = the();
    model.push(
      {
        text: ['Paying ', 'now. '],
        delayMs: 50,
        toolCalls: [
          { name: 'pay', arguments: { invoice: 'INV-9', amount: 12 }, callId: 'call_p9' },
        ],
      },
      { text: ['Paid ', 'INV-9.'], delayMs: 50 },
    );
    await page.goto(`${studio}/ui/playground`);
    await page.locator('input[name="session"]').fill('studio-pay');
    await page.locator('#chat-message').fill('Pay INV-9');
    await page.getByRole('button', { name: 'Send' }).click();
    const approval = page.locator('.approval[data-call-id="call_p9"]');
    await approval.waitFor();
    expect(await page.locator('li.turn').getAttribute('data-status')).toBe('waiting');
    expect(await approval.locator('pre').textContent()).toContain('"INV-9"');
    expect(existsSync(payerLog) ? readFileSync(payerLog, 'utf8') : '').not.toContain('INV-9');
    await approval.getByRole('button', { name: 'Approve' }).click();
    await page.locator('li.turn[data-status="done"]').waitFor();
    // The answer is marked once the server took it (a turn can read done before, on its pause).
    await page.locator('.approval[data-call-id="call_p9"][data-answer="approved"]').waitFor();
    const call = page.locator('.tool-call[data-tool="pay"]');
    expect(await call.locator('pre').nth(1).textContent()).toBe('"paid 12 on INV-9"');
    await waitFor(async () =>
      (await page.locator('.part-text').allTextContents()).includes('Paid INV-9.'),
    );
    expect(readFileSync(payerLog, 'utf8')).toContain('paid INV-9 12');
    // The usage of the whole turn, the requests after the approval included.
    await waitFor(async () => (await page.locator('li.turn .turn-usage').count()) === 1);
    expect(await page.locator('li.turn .turn-usage').textContent()).toBe(
      '30 tokens, 2 model requests',
    );
    expect(await answerPieces(page.locator('li.turn'))).toEqual([
      'part-text',
      'tool-call',
      'approval',
      'part-text',
    ]);
    // The session's page: the turn in order, with its run.
    await page.getByRole('link', { name: 'Its history' }).click();
    await page.getByRole('heading', { name: /Session/ }).waitFor();
    const turn = page.locator('li.turn[data-turn="0"]');
    await turn.waitFor();
    const text = (await turn.textContent()) ?? '';
    expect(text.indexOf('Pay INV-9')).toBeLessThan(text.indexOf('Tool call pay'));
    expect(text.indexOf('Tool call pay')).toBeLessThan(text.indexOf('Paid INV-9.'));
    expect(await turn.locator('.turn-head .status').textContent()).toBe('completed');
    expect(consoleErrors()).toEqual([]);
  }, 40_000);

  it('rejects a held tool call inline with a reason: the tool does not run', async () => {
    const { page, model, studio, payerLog, consoleErrors } = the();
    model.push(
      {
        toolCalls: [
          { name: 'pay', arguments: { invoice: 'INV-13', amount: 99 }, callId: 'call_p13' },
        ],
      },
      { text: ['Not paid.'] },
    );
    await page.goto(`${studio}/ui/playground?agent=payer`);
    await page.locator('#chat-message').fill('Pay INV-13');
    await page.getByRole('button', { name: 'Send' }).click();
    const approval = page.locator('.approval[data-call-id="call_p13"]');
    await approval.waitFor();
    await approval.getByLabel('Reason to reject').fill('not this month');
    await approval.getByRole('button', { name: 'Reject' }).click();
    await page.locator('li.turn[data-status="done"]').waitFor();
    // The answer is marked once the server took it (a turn can read done before, on its pause).
    await page.locator('.approval[data-call-id="call_p13"][data-answer="rejected"]').waitFor();
    await waitFor(async () =>
      (await page.locator('.part-text').allTextContents()).includes('Not paid.'),
    );
    // The model was told why (its next request carries the rejection), and nothing was paid.
    const told = JSON.stringify(model.requests.at(-1)?.body ?? {});
    expect(told).toContain('not this month');
    expect(existsSync(payerLog) ? readFileSync(payerLog, 'utf8') : '').not.toContain('INV-13');
    expect(consoleErrors()).toEqual([]);
  }, 30_000);

  it('answers two held calls of one turn, each in its place', async () => {
    const { page, model, studio, payerLog, consoleErrors } = the();
    const pay = (invoice: string) => ({
      toolCalls: [{ name: 'pay', arguments: { invoice, amount: 1 }, callId: `call_${invoice}` }],
    });
    model.push(
      { text: ['First. '], ...pay('A1') },
      { text: ['Second. '], ...pay('A2') },
      { text: ['Both paid.'] },
    );
    await page.goto(`${studio}/ui/playground?agent=payer`);
    await page.locator('#chat-message').fill('Pay A1 then A2');
    await page.getByRole('button', { name: 'Send' }).click();
    for (const invoice of ['A1', 'A2']) {
      const approval = page.locator(`.approval[data-call-id="call_${invoice}"]`);
      await approval.getByRole('button', { name: 'Approve' }).click();
      await page
        .locator(`.approval[data-call-id="call_${invoice}"][data-answer="approved"]`)
        .waitFor();
    }
    const turn = page.locator('li.turn[data-status="done"]');
    await turn.waitFor();
    await waitFor(async () => (await turn.locator('.part-text').allTextContents()).length === 3);
    expect(await answerPieces(turn)).toEqual([
      'part-text',
      'tool-call',
      'approval',
      'part-text',
      'tool-call',
      'approval',
      'part-text',
    ]);
    expect(await turn.locator('.part-text').allTextContents()).toEqual([
      'First. ',
      'Second. ',
      'Both paid.',
    ]);
    expect(readFileSync(payerLog, 'utf8')).toMatch(/paid A1 1\npaid A2 1\n/);
    expect(consoleErrors()).toEqual([]);
  }, 30_000);
}
