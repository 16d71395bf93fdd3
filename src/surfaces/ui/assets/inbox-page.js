/**
 * Everything waiting for a person (`GET /pending`: workflow interrupts, tool approvals),
 * read again every 3 s. Each item shows what was asked and, unless the page is read-only, a
 * way to answer it: for a tool call held for approval, Approve and Reject with an optional
 * reason (approval-answer.js, as in the playground; a form for the reason when the tool
 * declares its shape); for a workflow's question, a form built from its answer schema, or an
 * empty JSON editor (answer-form.js). The answer (`POST /runs/{id}/answer`) and its outcome (the run's status
 * after it, its result, or the next question, listed in the item's place) stay on the page.
 */

import { QuestionAnswer } from './answer-form.js';
import { api, can } from './api.js';
import { ApprovalButtons, useApprovalAnswer } from './approval-answer.js';
import { pretty, shortId } from './format.js';
import { SleepingUntil, wakeAtOf } from './timer.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const REFRESH_MS = 3000;

export function InboxPage() {
  const [items, setItems] = useState(null);
  const [error, setError] = useState(null);
  const [answered, setAnswered] = useState([]); // { item, outcome }

  useEffect(() => {
    let live = true;
    const load = () =>
      api('/pending')
        .then((body) => {
          if (!live) return;
          setItems(body.items);
          setError(null);
        })
        .catch((e) => {
          if (!live || e.status === 401) return; // the key prompt says it
          setError(e.status === 404 ? 'This server has no inbox route (GET /pending).' : e.message);
        });
    load();
    const timer = setInterval(() => document.hidden || load(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  const done = (item, outcome, verdict = null) => {
    setAnswered((all) => [
      { item, outcome, verdict, key: `${answerKey(item)}:${all.length}` },
      ...all,
    ]);
    // The next question the run asks takes the item's place at once (a timer is no question).
    const next = outcome.pending && !wakeAtOf(outcome.pending.payload) ? [outcome.pending] : [];
    setItems((all) => (all ?? []).flatMap((i) => (i.run_id === item.run_id ? next : [i])));
  };

  return html`
    <section class="page inbox">
      <h1>Inbox <span class="muted count">${items ? `${items.length} waiting` : ''}</span></h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${
        answered.length > 0
          ? html`<h2>Answered</h2><ul class="cards">${answered.map(
              ({ item, outcome, verdict, key }) =>
                html`<li key=${key}><${Outcome} item=${item} outcome=${outcome} verdict=${verdict} /></li>`,
            )}</ul>`
          : null
      }
      ${items === null && !error ? html`<p class="muted">Loading…</p>` : null}
      ${items?.length === 0 ? html`<p class="muted">Nothing is waiting for a person.</p>` : null}
      ${
        items?.length
          ? html`<ul class="cards">${items.map(
              (item) =>
                html`<li key=${answerKey(item)}>${
                  item.reason === 'approval'
                    ? html`<${Approval} item=${item} onAnswered=${done} />`
                    : html`<${Waiting} item=${item} onAnswered=${done} />`
                }</li>`,
            )}</ul>`
          : null
      }
    </section>
  `;
}

/** An item by what it asks: a run's next question is a new item, not the one answered. */
function answerKey(item) {
  return `${item.run_id} ${JSON.stringify(item.payload ?? null)}`;
}

/** A tool call held for approval: Approve, or Reject with an optional reason. */
function Approval({ item, onAnswered }) {
  const callId = item.payload?.call_id ?? null;
  const approval = useApprovalAnswer(
    item.run_id,
    callId,
    (outcome, approved) => onAnswered(item, outcome, approved ? 'approved' : 'rejected'),
    item.answer_schema,
  );
  return html`
    <article class="card" data-run-id=${item.run_id} data-call-id=${callId ?? ''}>
      <${Heading} item=${item} />
      <h4>Asked</h4>
      <pre class="json">${pretty(item.payload)}</pre>
      <${ApprovalButtons} approval=${approval} callId=${callId}
        readOnly="Read-only: answer through the API." />
    </article>
  `;
}

function Heading({ item }) {
  return html`
    <div class="card-head">
      <span class=${`status s-waiting_human`}>${item.reason}</span>
      <strong>${item.invocable}</strong> <span class="muted">${item.kind}</span>
      <a class="mono" href=${`/ui/runs/${encodeURIComponent(item.run_id)}`} title=${item.run_id}>${shortId(item.run_id)}</a>
      ${item.thread_id ? html`<span class="muted">thread <span class="mono">${item.thread_id}</span></span>` : null}
      ${item.session_id && item.session_id !== item.thread_id ? html`<span class="muted">session <span class="mono">${item.session_id}</span></span>` : null}
    </div>
  `;
}

function Waiting({ item, onAnswered }) {
  return html`
    <article class="card" data-run-id=${item.run_id}>
      <${Heading} item=${item} />
      <h4>Asked</h4>
      <pre class="json">${pretty(item.payload)}</pre>
      ${
        can('answer')
          ? html`<${QuestionAnswer} runId=${item.run_id} schema=${item.answer_schema}
              idPrefix=${`answer-${item.run_id}`} onAnswered=${(outcome) => onAnswered(item, outcome)} />`
          : html`<p class="muted">Read-only: answer through the API.</p>`
      }
    </article>
  `;
}

function Outcome({ item, outcome, verdict }) {
  const wakeAt = wakeAtOf(outcome.pending?.payload);
  return html`
    <article class="card answered" data-run-id=${item.run_id} data-outcome=${outcome.status}>
      <${Heading} item=${item} />
      ${
        wakeAt
          ? html`<p>Answered: <${SleepingUntil} wakeAt=${wakeAt} />; the run goes on by itself.</p>`
          : html`<p>${verdict ? html`You ${verdict} <code>${item.payload?.tool}</code>` : 'Answered'}: the run is now <span class=${`status s-${outcome.status}`}>${outcome.status}</span></p>`
      }
      ${outcome.result === undefined || outcome.result === null ? null : html`<h4>Result</h4><pre class="json">${pretty(outcome.result)}</pre>`}
      ${
        outcome.pending && !wakeAt
          ? html`<p class="muted">It asks again${outcome.pending.reason === 'approval' ? html`: its call of <code>${outcome.pending.payload?.tool}</code> waits for approval` : ''}; answer it below.</p>`
          : null
      }
    </article>
  `;
}
