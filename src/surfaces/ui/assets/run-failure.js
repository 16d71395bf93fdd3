/**
 * Why a failed run failed (#41), from its `run.failed` event: the error's type and message,
 * the workflow node or agent tool that failed with what it was given, and the stack, folded
 * until asked for. An input over 8 KB of JSON was recorded as a marker holding its start
 * (`agentdeck:truncated`): shown as that start, with how long the whole was.
 */
import { pretty } from './format.js';
import { html } from './vendor/preact-htm.mjs';

const TRUNCATED = 'agentdeck:truncated';

/** The failure of the run whose events are `events`; nothing until it has failed. */
export function RunFailure({ events }) {
  const failed = events.findLast((event) => event.kind === 'run.failed');
  if (!failed) return null;
  const p = failed.payload ?? {};
  const where =
    p.node !== undefined ? ['node', p.node] : p.tool !== undefined ? ['tool', p.tool] : null;
  return html`
    <section class="run-failure" data-testid="run-failure" aria-label="Why the run failed">
      <h2>Failure</h2>
      <p><code data-testid="failure-type">${p.error_type}</code>${
        where
          ? html` in ${where[0]} <code data-testid="failure-where" data-kind=${where[0]}>${where[1]}</code>`
          : null
      }</p>
      <pre class="json bad" data-testid="failure-message">${p.message}</pre>
      ${'input' in p ? html`<${FailureInput} input=${p.input} what=${where?.[0] === 'tool' ? 'Its arguments' : 'Its input'} />` : null}
      ${
        p.stack
          ? html`<details class="raw" data-testid="failure-stack"><summary>Stack</summary><pre class="json">${p.stack}</pre></details>`
          : null
      }
    </section>
  `;
}

function FailureInput({ input, what }) {
  const cut = input && typeof input === 'object' ? input[TRUNCATED] : undefined;
  return html`
    <h3>${what}${cut ? html` <span class="muted">(the first ${cut.head.length} of ${cut.chars} characters)</span>` : null}</h3>
    <pre class="json" data-testid="failure-input">${cut ? `${cut.head}…` : pretty(input)}</pre>
  `;
}
