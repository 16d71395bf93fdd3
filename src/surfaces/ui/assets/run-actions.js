/**
 * Pause, cancel and resume a run, each after a confirmation, then what became of it: the
 * API's answer (the request recorded), then from the run's own events, as they stream in,
 * the request in the log (`control.requested`), the run seeing it (`control.observed`) and
 * its effect (`run.paused`, `run.cancelled`, `run.resumed`). Hidden in read-only mode,
 * and from a caller without the `control` role.
 */
import { api, can as callerCan } from './api.js';
import { clock, ENDED, statusLabel } from './format.js';
import { html, useEffect, useRef, useState } from './vendor/preact-htm.mjs';

const EFFECT = { pause: 'run.paused', cancel: 'run.cancelled', resume: 'run.resumed' };

export function RunActions({ run, events }) {
  const [asking, setAsking] = useState(null); // the verb being confirmed
  const [sent, setSent] = useState([]); // { verb, afterSeq, at, answer, error }
  if (!callerCan('control') || (ENDED.has(run.status) && sent.length === 0)) return null;
  const can = {
    pause: run.status === 'running' || run.status === 'pending',
    cancel: !ENDED.has(run.status),
    resume: run.status === 'paused',
  };
  const act = async (verb, reason) => {
    const at = new Date().toISOString();
    setSent((all) => [...all, { verb, afterSeq: events.at(-1)?.seq ?? -1, at }]);
    const settle = (change) =>
      setSent((all) => all.map((r) => (r.at === at ? { ...r, ...change } : r)));
    try {
      const path = `/runs/${encodeURIComponent(run.run_id)}/${verb}`;
      const answer = await api(path, {
        method: 'POST',
        body: verb === 'resume' ? {} : { reason: reason || null },
      });
      settle({ answer });
    } catch (error) {
      settle({ error: error.message });
    }
  };
  return html`
    <div class="actions" aria-label="Actions">
      ${run.status === 'waiting_human' ? html`<p class="waiting">Waiting for a person: <a href="/ui/inbox">answer it in the inbox</a>.</p>` : null}
      ${['pause', 'resume', 'cancel'].map(
        (verb) => html`<button type="button" class=${verb === 'cancel' ? 'danger' : ''}
          disabled=${!can[verb]} onClick=${() => setAsking(verb)}>${title(verb)}</button>`,
      )}
      ${
        asking
          ? html`<${Confirm} verb=${asking} run=${run} onDone=${(reason) => {
              const verb = asking;
              setAsking(null);
              if (reason !== null) act(verb, reason);
            }} />`
          : null
      }
      ${
        sent.length > 0
          ? html`<ol class="action-log" aria-live="polite">
        ${sent.map((record) => html`<li key=${record.at}>${describe(record, events)}</li>`)}
      </ol>`
          : null
      }
    </div>
  `;
}

function title(verb) {
  return verb[0].toUpperCase() + verb.slice(1);
}

/** A modal asking to confirm `verb`, with an optional reason; `onDone(reason | null)`. */
function Confirm({ verb, run, onDone }) {
  const dialog = useRef(null);
  const [reason, setReason] = useState('');
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const explain = {
    pause:
      'The run stops at its next safe point (between model calls, tools or nodes) and can be resumed.',
    cancel:
      run.status === 'queued'
        ? 'The run leaves the queue and never starts.'
        : 'The run stops for good; a tool in flight is aborted.',
    resume: 'The paused run continues where it stopped.',
  }[verb];
  return html`
    <dialog ref=${dialog} class="confirm" aria-labelledby="confirm-title"
      onCancel=${(event) => {
        event.preventDefault();
        onDone(null);
      }}>
      <form method="dialog" onSubmit=${(event) => {
        event.preventDefault();
        onDone(reason);
      }}>
        <h2 id="confirm-title">${title(verb)} this run?</h2>
        <p><span class="mono">${run.run_id}</span> (${run.origin}, ${statusLabel(run.status)})</p>
        <p class="muted">${explain}</p>
        ${
          verb === 'resume'
            ? null
            : html`<label class="field">Reason (optional)
          <input name="reason" value=${reason} onInput=${(event) => setReason(event.currentTarget.value)} /></label>`
        }
        <div class="buttons">
          <button type="button" onClick=${() => onDone(null)}>Back</button>
          <button type="submit" class=${verb === 'cancel' ? 'danger' : 'primary'} autofocus>${title(verb)} run</button>
        </div>
      </form>
    </dialog>
  `;
}

/** What became of a request so far, from the API's answer and the run's events after it. */
function describe(record, events) {
  const later = events.filter((e) => e.seq > record.afterSeq);
  const requested = later.find(
    (e) => e.kind === 'control.requested' && e.payload.verb === record.verb,
  );
  const observed =
    requested &&
    later.find(
      (e) => e.kind === 'control.observed' && e.payload.request_id === requested.payload.request_id,
    );
  const effect = later.find((e) => e.kind === EFFECT[record.verb]);
  const steps = [`${title(record.verb)} asked at ${clock(record.at)}`];
  if (record.error) steps.push(`refused: ${record.error}`);
  else if (record.answer?.recorded) steps.push('request recorded');
  if (requested) steps.push(`in the run's log (#${requested.seq})`);
  if (observed) steps.push(`seen by the run (#${observed.seq})`);
  if (effect) steps.push(`${EFFECT[record.verb].slice(4)} (#${effect.seq})`);
  if (record.verb === 'resume' && record.answer)
    steps.push(`now ${statusLabel(record.answer.status)}, ${record.answer.events} events`);
  const pending = !record.error && !effect && !(record.verb === 'resume' && record.answer);
  return html`<span data-verb=${record.verb} data-done=${pending ? 'no' : 'yes'}>${steps.join(' → ')}${pending ? ' …' : ''}</span>`;
}
