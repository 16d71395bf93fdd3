/**
 * Failures that explain themselves (#41) in the run inspector: a workflow run without a
 * thread that failed shows its failing node marked on the graph, the error's type, message,
 * the node's input and its stack (folded). Registered by ui.browser.test.ts in its own
 * browser and servers.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { screenshotPath } from '../support/browser.js';
import { postJson } from '../support/http.js';
import { screenshotFromTop } from '../support/studio-pages.js';

export interface FailureContext {
  page: Page;
  /** A server of the `test/fixtures/ui` project (its `ledger` workflow fails on a negative amount). */
  url: string;
  /** Console errors, minus those a test expects. */
  unexpectedErrors(expected?: RegExp[]): string[];
}

export function failureTests(the: () => FailureContext) {
  it('shows why a workflow run without a thread failed: the node marked on its graph, its input, the stack', async () => {
    const { page, url, unexpectedErrors } = the();
    const response = await fetch(`${url}/workflows/ledger`, postJson({ amount: -4 }));
    expect(response.status).toBe(500);
    const runId = response.headers.get('x-run-id') ?? '';
    expect(await response.json()).toEqual({ detail: 'internal error', run_id: runId });
    await page.goto(`${url}/ui/runs/${runId}`);
    const graph = page.locator('svg.graph[data-workflow="ledger"]');
    await graph.locator('g.node[data-node="post"][data-mark="failed"]').waitFor();
    expect(await graph.locator('g.node[data-node="open"]').getAttribute('data-mark')).toBe('done');
    const failure = page.getByTestId('run-failure');
    expect(await failure.getByTestId('failure-type').textContent()).toBe('RangeError');
    expect(await failure.getByTestId('failure-where').textContent()).toBe('post');
    expect(await failure.getByTestId('failure-message').textContent()).toBe(
      'cannot post a negative amount (-4)',
    );
    expect(JSON.parse((await failure.getByTestId('failure-input').textContent()) ?? '')).toEqual({
      amount: -4,
      account: 'main',
    });
    const stack = failure.getByTestId('failure-stack');
    expect(await stack.locator('pre').isVisible()).toBe(false); // folded until asked for
    await stack.locator('summary').click();
    expect(await stack.locator('pre').textContent()).toMatch(
      /RangeError: cannot post a negative amount[\s\S]*postEntry[\s\S]*ledger/,
    );
    await screenshotFromTop(page, screenshotPath('ui-run-failure.png'));
    expect(unexpectedErrors([/status of 500/])).toEqual([]);
  }, 30_000);
}
