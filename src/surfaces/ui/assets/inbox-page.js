/**
 * Everything waiting for a person (`GET /pending`: workflow interrupts, tool approvals),
 * read again every 3 s. Each item shows what was asked and, unless the page is read-only, a
 * JSON editor prefilled from the payload (for a tool approval, the approval it takes); the answer (`POST /runs/{id}/answer`) and its
 * outcome (the run's status after it, its result, or the next question) stay on the page.
 */
import { api, CAN_ACT } from './api.js';
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

  const done = (item, outcome) => {
    setAnswered((all) => [{ item, outcome }, ...all]);
    setItems((all) => (all ?? []).filter((i) => i.run_id !== item.run_id || outcome.pending));
  };

  return html`
    <section class="page inbox">
      <h1>Inbox <span class="muted count">${items ? `${items.length} waiting` : ''}</span></h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${
        answered.length > 0
          ? html`<h2>Answered</h2><ul class="cards">${answered.map(
              ({ item, outcome }) =>
                html`<li key=${`${item.run_id}-${outcome.status}`}><${Outcome} item=${item} outcome=${outcome} /></li>`,
            )}</ul>`
          : null
      }
      ${items === null && !error ? html`<p class="muted">Loading…</p>` : null}
      ${items?.length === 0 ? html`<p class="muted">Nothing is waiting for a person.</p>` : null}
      ${
        items?.length
          ? html`<ul class="cards">${items.map(
              (item) =>
                html`<li key=${item.run_id}><${Waiting} item=${item} onAnswered=${done} /></li>`,
            )}</ul>`
          : null
      }
    </section>
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
        CAN_ACT
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

/**
 * What the editor starts with: a workflow's question itself (edit it into the answer), or
 * for a held tool call the approval it takes (`{"approved": true, ...}`; false rejects).
 */
function prefill(item) {
  // Naming the call makes a retry safe: a second answer is a 409, never the next call's.
  if (item.reason === 'approval') {
    return { approved: true, reason: null, call_id: item.payload?.call_id ?? null };
  }
  return item.payload === undefined ? null : item.payload;
}

function Outcome({ item, outcome }) {
  const wakeAt = wakeAtOf(outcome.pending?.payload);
  return html`
    <article class="card answered" data-run-id=${item.run_id} data-outcome=${outcome.status}>
      <${Heading} item=${item} />
      ${
        wakeAt
          ? html`<p>Answered: <${SleepingUntil} wakeAt=${wakeAt} />; the run goes on by itself.</p>`
          : html`<p>Answered: the run is now <span class=${`status s-${outcome.status}`}>${outcome.status}</span></p>`
      }
      ${outcome.result === undefined || outcome.result === null ? null : html`<h4>Result</h4><pre class="json">${pretty(outcome.result)}</pre>`}
      ${outcome.pending && !wakeAt ? html`<h4>It asks again</h4><pre class="json">${pretty(outcome.pending.payload)}</pre>` : null}
    </article>
  `;
}
