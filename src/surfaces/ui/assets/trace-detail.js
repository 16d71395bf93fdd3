/**
 * What one bar of the waterfall sent and received, below the waterfall: a model request's
 * full request (model, settings, instructions, tools offered, messages: rebuilt from the
 * run's events by model-request.js) and its response (output, finish reason, tokens,
 * latency, the provider's request id); a tool call's arguments and output (or error) and its
 * child run; a node's state delta; a wait's question and answer; the run's input and end.
 */
import { duration, pretty } from './format.js';
import { modelRequest } from './model-request.js';
import { textOf } from './timeline.js';
import { html } from './vendor/preact-htm.mjs';

export function BarDetail({ bar, events, onClose }) {
  return html`
    <section class="trace-detail" data-testid="trace-detail" data-kind=${bar.kind} aria-label=${`${bar.label}: details`}>
      <header>
        <h3>${TITLES[bar.kind]} <code>${bar.label}</code></h3>
        <span class="muted">${duration(bar.end - bar.start)}, #${bar.seq}</span>
        <button type="button" class="close" onClick=${onClose}>Close</button>
      </header>
      ${body(bar, events)}
    </section>
  `;
}

const TITLES = {
  run: 'Run',
  model: 'Model request',
  tool: 'Tool call',
  node: 'Node',
  wait: 'Wait for a person:',
  pause: 'Pause:',
  failure: 'Failure:',
};

const json = (value) => html`<pre class="json">${pretty(value)}</pre>`;
const field = (name, value) => html`<div><dt>${name}</dt><dd>${value ?? '–'}</dd></div>`;

function body(bar, events) {
  const first = bar.events[0]?.payload ?? {};
  const last = bar.events[bar.events.length - 1]?.payload ?? {};
  switch (bar.kind) {
    case 'model':
      return bar.inferred ? inferred(bar) : html`<${ModelCall} bar=${bar} events=${events} />`;
    case 'tool':
      return html`
        ${bar.childRunId ? html`<p>Ran as its own run: <a class="mono" href=${`/ui/runs/${encodeURIComponent(bar.childRunId)}`}>${bar.childRunId}</a></p>` : null}
        <div class="pair"><div><h4>Arguments</h4>${json(bar.args)}</div>
          <div><h4>${bar.error ? 'Error' : 'Output'}</h4>${
            bar.error
              ? html`<pre class="json bad">${bar.error}</pre>`
              : bar.status === 'ok'
                ? json(bar.output)
                : html`<p class="muted">none (${bar.status === 'open' ? 'running' : 'stopped'})</p>`
          }</div></div>`;
    case 'node':
      return html`<h4>State delta</h4>${json(first.delta)}${
        bar.timed
          ? null
          : html`<p class="muted">No duration recorded: drawn from the previous step's end.</p>`
      }`;
    case 'wait':
    case 'pause':
      return html`
        <div class="pair"><div><h4>${bar.kind === 'wait' ? 'Asked' : 'Reason'}</h4>${json(bar.kind === 'wait' ? (first.payload ?? first) : first.reason)}</div>
          <div><h4>${bar.events.length > 1 ? 'Resumed with' : 'Not resumed'}</h4>${bar.events.length > 1 ? json(last) : null}</div></div>`;
    case 'failure':
      return html`
        <pre class="json bad">${first.message}</pre>
        ${first.stack ? html`<h4>Stack</h4><pre class="json">${first.stack}</pre>` : null}
        ${first.input !== undefined ? html`<h4>Input of the failing ${first.node ? 'node' : 'tool'}</h4>${json(first.input)}` : null}`;
    default:
      return html`<div class="pair"><div><h4>Input</h4>${content(first.input)}</div>
        <div><h4>${bar.status === 'error' ? 'Failed' : 'Output'}</h4>${
          bar.status === 'open'
            ? html`<p class="muted">still running</p>`
            : content(last.output ?? last.message ?? last.reason)
        }</div></div>`;
  }
}

/** A cost in dollars, a small one to two significant digits (a request costs fractions of a cent). */
export function usdText(usd) {
  if (usd === 0) return '$0';
  if (usd < 0.0001) return `$${usd.toPrecision(2)}`;
  return `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** A bar drawn from a usage report (a run recorded without its model requests). */
function inferred(bar) {
  return html`<p class="muted">This run recorded no model requests (before they were recorded, or with the
    recording off): the bar ends at the usage report and starts at the step before it.</p>
    <dl class="facts">${field('Model', bar.model)}${field('Tokens in', bar.tokens?.input)}${field('Tokens out', bar.tokens?.output)}</dl>`;
}

function ModelCall({ bar, events }) {
  const request = modelRequest(events, bar.callId);
  if (!request) return html`<p class="muted">No request recorded.</p>`;
  const r = request.response;
  return html`
    <dl class="facts">
      ${field('Model', html`<code>${request.model ?? 'default'}</code>`)}
      ${field('Finish reason', r?.finish_reason)}
      ${field('Tokens', r ? `${r.input_tokens ?? '–'} in, ${r.output_tokens ?? '–'} out` : null)}
      ${field('Cost', typeof bar.usd === 'number' ? usdText(bar.usd) : null)}
      ${field('Latency', r ? duration(r.latency_ms) : null)}
      ${field('Provider request id', r?.provider_request_id ? html`<code>${r.provider_request_id}</code>` : null)}
    </dl>
    ${request.detail === 'metadata' ? html`<p class="muted">Recorded as metadata only: the bodies were not kept.</p>` : null}
    <div class="pair">
      <div class="trace-request" data-testid="model-request">
        <h4>Instructions</h4>
        ${request.instructions ? stored(request.instructions, (v) => html`<pre class="message-text">${typeof v === 'string' ? v : pretty(v)}</pre>`) : html`<p class="muted">none</p>`}
        <h4>Messages (${request.messages.length})</h4>
        <ol class="trace-messages">${request.messages.map((m) => html`<li>${stored(m, message)}</li>`)}</ol>
        <h4>Tools offered (${request.tools.length})</h4>
        <ul class="trace-tools">${request.tools.map(
          (t) =>
            html`<li>${stored(t, (v) => html`<details><summary><code>${v?.name ?? v?.function?.name ?? 'tool'}</code></summary>${json(v)}</details>`)}</li>`,
        )}</ul>
        <h4>Settings</h4>
        ${json(request.settings)}
      </div>
      <div class="trace-response" data-testid="model-response">
        <h4>Response</h4>
        ${r ? (r.error ? html`<pre class="json bad">${r.error}</pre>` : output(r.output)) : html`<p class="muted">${bar.status === 'open' ? 'waiting…' : 'none: the run stopped first'}</p>`}
      </div>
    </div>
  `;
}

/** A value stored by digest: shown by `view`, or named as missing. */
function stored(item, view) {
  if (item.missing) return html`<p class="muted">not recorded (<code>${item.digest}</code>)</p>`;
  return view(item.value);
}

/** An input item: its role and text when it has them, else its JSON. */
function message(item) {
  const role = item?.role ?? item?.type ?? 'item';
  const text =
    typeof item?.content === 'string'
      ? item.content
      : Array.isArray(item?.content)
        ? item.content.map((part) => part?.text ?? '').join('')
        : '';
  return html`<div class="trace-message"><span class="trace-role">${role}</span>${
    text ? html`<div class="message-text">${text}</div>` : json(item)
  }</div>`;
}

function output(items) {
  if (!Array.isArray(items)) return html`<p class="muted">not recorded</p>`;
  return html`<ol class="trace-messages">${items.map((item) => html`<li>${message(item)}</li>`)}</ol>`;
}

/** A run's input or output blocks: their text, else their JSON. */
function content(blocks) {
  const text = textOf(blocks);
  if (text) return html`<div class="message-text">${text}</div>`;
  return typeof blocks === 'string' ? html`<pre class="json">${blocks}</pre>` : json(blocks);
}
