/**
 * How each timeline entry reads (timeline.js folds the events into entries). Every entry has
 * its seq and time in the gutter and its events' raw JSON in a `<details>` (keyboard-reachable,
 * no script). Text grows in place as it streams; nothing above it moves.
 */
import { clock, pretty } from './format.js';
import { textOf } from './timeline.js';
import { SleepingUntil, wakeAtOf } from './timer.js';
import { Component, html, useState } from './vendor/preact-htm.mjs';

/**
 * Entries drawn from the start, and from the end: a long run (thousands of events) shows its
 * first and last entries at once and the rest a click away, so its page opens as fast as a
 * short one's (the waterfall above shows every step).
 */
const HEAD = 150;
const TAIL = 100;
const MORE = 500;

export function Timeline({ entries }) {
  const [head, setHead] = useState(HEAD);
  if (entries.length === 0) return html`<p class="muted">No events yet.</p>`;
  const hidden = entries.length - head - TAIL;
  const item = (entry) => html`<${Entry} key=${`${entry.seq}`} entry=${entry} />`;
  return html`
    <ol class="timeline" aria-label="Events">
      ${hidden > 0 ? entries.slice(0, head).map(item) : entries.map(item)}
      ${
        hidden > 0
          ? html`<li class="entry-gap" key="gap"><button type="button" onClick=${() => setHead(head + MORE)}>
              Show ${Math.min(MORE, hidden)} more of the ${hidden} entries in between</button></li>`
          : null
      }
      ${hidden > 0 ? entries.slice(-TAIL).map(item) : null}
    </ol>
  `;
}

/** An entry draws again only when it changed (a fold returns a new object for those only). */
class Entry extends Component {
  shouldComponentUpdate(next) {
    return next.entry !== this.props.entry;
  }
  render({ entry }) {
    return entryView(entry);
  }
}

function entryView(entry) {
  const [label, tone, body] = describe(entry);
  return html`
    <li class=${`entry t-${tone}`} data-kind=${entry.events[0].kind} data-seq=${entry.seq}>
      <div class="gutter"><span class="seq">#${entry.seq}</span>
        <time datetime=${entry.ts}>${clock(entry.ts)}</time></div>
      <div class="entry-main">
        <div class="entry-label">${label}</div>
        ${body}
        <details class="raw">
          <summary>JSON (${entry.events.length} event${entry.events.length === 1 ? '' : 's'})</summary>
          <pre>${entry.events.map((e) => JSON.stringify(e, null, 2)).join('\n')}</pre>
        </details>
      </div>
    </li>
  `;
}

const json = (value) => html`<pre class="json">${pretty(value)}</pre>`;

/** `[label, tone, body]` of an entry. */
function describe(e) {
  const p = e.payload ?? {};
  switch (e.type) {
    case 'message':
      return [
        html`Assistant message ${progress(e, 'streaming…', 'cut off')}`,
        'message',
        html`<div class="message-text">${e.text}</div>${
          e.content?.some((b) => b.type !== 'text') ? json(e.content) : null
        }`,
      ];
    case 'thought':
      return ['Reasoning', 'muted', html`<div class="message-text thought">${e.text}</div>`];
    case 'tool':
      return [
        html`Tool call <code>${e.name}</code> ${
          e.done && e.error
            ? html`<span class="bad">failed</span>`
            : progress(e, 'running…', 'stopped')
        }`,
        e.error ? 'bad' : 'tool',
        html`<div class="pair"><div><h4>Arguments</h4>${json(e.args)}</div>
          <div><h4>${e.error ? 'Error' : 'Result'}</h4>${
            e.done
              ? e.error
                ? html`<pre class="json bad">${e.error}</pre>`
                : json(e.output)
              : html`<p class="muted">${e.cut ? 'none' : 'waiting…'}</p>`
          }</div></div>`,
      ];
    case 'control':
      return [
        html`${e.verb} requested${e.reason ? html` <span class="muted">(${e.reason})</span>` : null}`,
        'control',
        html`<p class="muted control-outcome">${controlOutcome(e)}</p>`,
      ];
    case 'run.queued':
      return [
        html`Queued under key <code>${p.key}</code>, priority ${p.priority}`,
        'start',
        html`${textOf(p.input) ? html`<div class="message-text user">${textOf(p.input)}</div>` : json(inputData(p.input))}`,
      ];
    case 'run.started':
      return [
        html`Run started${p.parent_run_id ? ' (a workflow called as a tool)' : ''}${
          p.schedule ? html` by schedule <code>${p.schedule}</code>` : null
        }`,
        'start',
        html`${textOf(p.input) ? html`<div class="message-text user">${textOf(p.input)}</div>` : json(inputData(p.input))}`,
      ];
    case 'run.completed':
      return ['Completed', 'good', output(p.output)];
    case 'run.failed':
      return [
        html`Failed: <code>${p.error_type}</code>`,
        'bad',
        html`<pre class="json bad">${p.message}</pre>`,
      ];
    case 'run.cancelled':
      return ['Cancelled', 'bad', p.reason ? html`<p>${p.reason}</p>` : null];
    case 'run.paused': {
      const wakeAt = wakeAtOf(p.reason);
      if (wakeAt) return [html`<${SleepingUntil} wakeAt=${wakeAt} />`, 'wait', null];
      return ['Paused', 'control', p.reason ? html`<p>${p.reason}</p>` : null];
    }
    case 'run.resumed':
      return p.answer
        ? [
            `Resumed: the call was ${p.answer.approved ? 'approved' : 'rejected'}`,
            p.answer.approved ? 'good' : 'bad',
            p.answer.reason ? html`<p>${p.answer.reason}</p>` : null,
          ]
        : p.graph
          ? [
              // The thread resumed under another graph (#42): from which version to which.
              html`Resumed under graph <code>${p.graph.to}</code> (paused under <code>${p.graph.from ?? 'unknown'}</code>)`,
              'control',
              null,
            ]
          : ['Resumed', 'control', null];
    case 'run.interrupted':
      return [
        p.reason === 'approval'
          ? html`Tool call <code>${p.payload?.tool}</code> waits for approval`
          : html`Interrupt on thread <code>${p.thread_id}</code>: waiting for an answer`,
        'wait',
        json(p.payload),
      ];
    case 'node.updated':
      return [html`Node <code>${p.node}</code> updated`, 'node', json(p.delta)];
    case 'usage.reported':
      return [
        html`Usage${p.model ? html` · <code>${p.model}</code>` : null}`,
        'muted',
        html`<p class="muted">${p.total_tokens} tokens (${p.input_tokens} in, ${p.output_tokens} out), ${p.requests} request${p.requests === 1 ? '' : 's'}${p.usd === null ? '' : `, $${p.usd.toFixed(4)}`}</p>`,
      ];
    case 'status.reported':
      return [
        `Status (${p.level})`,
        p.level === 'error' ? 'bad' : 'muted',
        html`<p>${p.message}</p>`,
      ];
    case 'progress.reported':
      return [
        'Progress',
        'muted',
        html`<p>${p.progress}${p.total === null ? '' : ` / ${p.total}`} ${p.message ?? ''}</p>`,
      ];
    case 'model.call.started':
      // The request in full is one click away on its bar in the trace above.
      return [
        html`Model request <code>${p.model ?? 'default model'}</code>`,
        'muted',
        html`<p class="muted">${p.messages?.length ?? 0} messages, ${p.tools?.length ?? 0} tools offered${p.detail === 'metadata' ? ' (metadata only)' : ''}</p>`,
      ];
    case 'model.call.completed':
      return [
        p.error ? html`Model request failed` : 'Model response',
        p.error ? 'bad' : 'muted',
        p.error
          ? html`<pre class="json bad">${p.error}</pre>`
          : html`<p class="muted">${p.finish_reason ?? 'no finish reason'}, ${p.input_tokens ?? '–'} tokens in, ${p.output_tokens ?? '–'} out, ${Math.round(p.latency_ms)} ms</p>`,
      ];
    case 'artifact.created':
      return [html`Artifact <code>${p.name}</code>`, 'muted', json(p.block)];
    case 'score.recorded':
      // An experiment's score, recorded after the run's end (docs/evals.md).
      return [
        html`Score <code>${p.name}</code>: ${p.value}${p.passed === null ? '' : p.passed ? ' (pass)' : ' (fail)'}`,
        p.passed === false ? 'bad' : 'muted',
        p.comment ? html`<p>${p.comment}</p>` : null,
      ];
    default:
      return [html`Event <code>${e.events[0].kind}</code>`, 'unknown', json(p)];
  }
}

/** Whether an entry still grows: `growing` while it does, `cut` once the run stopped it. */
function progress(e, growing, cut) {
  if (e.done) return null;
  if (e.cut)
    return html`<span class="cut" title=${`No end was recorded: ${e.cut}.`}>${cut}: ${e.cut}</span>`;
  return html`<span class="streaming">${growing}</span>`;
}

/** What became of a control request: seen by the run, then its effect or the run's end. */
function controlOutcome(e) {
  const steps = [];
  if (e.observed) steps.push(`observed by the run at ${clock(e.observed)}`);
  if (e.outcome) steps.push(`${e.outcome.text} (#${e.outcome.seq})`);
  return steps.length > 0 ? steps.join('; ') : 'recorded; not observed yet';
}

/** A run's output: its text, its data (a workflow's final state), or its blocks as JSON. */
function output(blocks) {
  if (Array.isArray(blocks) && blocks.length > 0 && blocks.every((b) => b?.type === 'text')) {
    return html`<div class="message-text">${textOf(blocks)}</div>`;
  }
  return json(inputData(blocks));
}

function inputData(blocks) {
  if (Array.isArray(blocks) && blocks.length === 1 && blocks[0]?.type === 'data')
    return blocks[0].data;
  return blocks;
}
