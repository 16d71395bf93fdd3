/**
 * Everything waiting for a person (`GET /pending`: workflow interrupts, tool approvals),
 * read again every 3 s. Each item shows what was asked and, unless the page is read-only, a
 * way to answer it: for a tool call held for approval, Approve and Reject with an optional
 * reason (approval-answer.js, as in the playground); for a workflow's question, a JSON editor
 * prefilled with it. The answer (`POST /runs/{id}/answer`) and its outcome (the run's status
 * after it, its result, or the next question, listed in the item's place) stay on the page.
 */
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
  const approval = useApprovalAnswer(item.run_id, callId, (outcome, approved) =>
    onAnswered(item, outcome, approved ? 'approved' : 'rejected'),
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
  const [text, setText] = useState(() => pretty(prefill(item)));
  const [sending, setSending] = useState(false);
  const [refused, setRefused] = useState(null);
  let parsed;
  let invalid = null;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    invalid = e.message;
  }
  const submit = async (event) => {
    event.preventDefault();
    if (invalid) return;
    setSending(true);
    setRefused(null);
    try {
      const outcome = await api(`/runs/${encodeURIComponent(item.run_id)}/answer`, {
        method: 'POST',
        body: { value: parsed },
      });
      onAnswered(item, outcome);
    } catch (e) {
      setRefused(`${e.status ?? ''} ${e.message}`.trim());
    } finally {
      setSending(false);
    }
  };
  const id = `answer-${item.run_id}`;
  return html`
    <article class="card" data-run-id=${item.run_id}>
      <${Heading} item=${item} />
      <h4>Asked</h4>
      <pre class="json">${pretty(item.payload)}</pre>
      ${
        can('answer')
          ? html`
        <form class="answer" onSubmit=${submit}>
          <label for=${id}>Answer (JSON)</label>
          <textarea id=${id} class="mono" rows=${Math.min(12, text.split('\n').length + 1)} spellcheck="false"
            aria-invalid=${invalid ? 'true' : 'false'} value=${text}
            onInput=${(e) => setText(e.currentTarget.value)}></textarea>
          <p class=${invalid ? 'error' : 'muted'} role=${invalid ? 'alert' : undefined}>${invalid ? `Not JSON: ${invalid}` : 'Sent as {"value": <this>}.'}</p>
          ${refused ? html`<p class="error" role="alert">Refused: ${refused}</p>` : null}
          <div class="buttons"><button type="submit" class="primary" disabled=${Boolean(invalid) || sending}>
            ${sending ? 'Answering…' : 'Answer'}</button></div>
        </form>`
          : html`<p class="muted">Read-only: answer through the API.</p>`
      }
    </article>
  `;
}

/** What the editor starts with: the workflow's question itself, to edit into the answer. */
function prefill(item) {
  return item.payload === undefined ? null : item.payload;
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
