/**
 * A durable workflow thread's checkpoints (#41) on its page, newest first (`GET
 * /workflows/{name}/threads/{id}/checkpoints`), each with "Fork from here" (a JSON editor of
 * the state, prefilled with the checkpoint's) and "Re-run from here"; both make a new thread
 * (`POST .../fork`) and say where it went, linked to its run. Nothing is shown for a thread
 * without checkpoints (a workflow that is not durable keeps none, and is not asked).
 */
import { api, can } from './api.js';
import { pretty, when } from './format.js';
import { catalogOnce } from './graph-view.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

export function ThreadCheckpoints({ workflow, threadId }) {
  const [listed, setListed] = useState(null);
  const [editing, setEditing] = useState(null); // { id, text }
  const [outcome, setOutcome] = useState(null); // { fork } | { error }
  const base = `/workflows/${encodeURIComponent(workflow)}/threads/${encodeURIComponent(threadId)}`;
  useEffect(() => {
    // Only a durable workflow keeps checkpoints: another's would answer 409.
    catalogOnce()
      .then((catalog) => catalog.workflows.find((w) => w.name === workflow)?.durable === true)
      .then((durable) => (durable ? api(`${base}/checkpoints`) : { checkpoints: [] }))
      .then((answer) => setListed(answer.checkpoints))
      .catch(() => setListed([]));
  }, [base, outcome]);
  if (!listed || listed.length === 0) return null;
  const fork = async (checkpointId, text) => {
    let body = { checkpoint_id: checkpointId };
    if (text !== undefined) {
      try {
        body = { ...body, state: JSON.parse(text) };
      } catch (error) {
        setOutcome({ error: `The state is not JSON: ${error.message}` });
        return;
      }
    }
    try {
      setOutcome({ fork: await api(`${base}/fork`, { method: 'POST', body }) });
      setEditing(null);
    } catch (error) {
      setOutcome({ error: error.message });
    }
  };
  const acting = can('run');
  return html`
    <h2>Checkpoints <span class="muted count">${listed.length}</span></h2>
    ${outcome?.error ? html`<p class="error" role="alert">${outcome.error}</p>` : null}
    ${outcome?.fork ? html`<${Forked} workflow=${workflow} fork=${outcome.fork} />` : null}
    <ol class="checkpoints" data-testid="checkpoints">
      ${listed.map(
        (c) => html`<li key=${c.id} data-checkpoint=${c.id}>
          <div class="checkpoint-head">
            <span class="mono">step ${c.step}</span>
            <span>${c.written_by.length > 0 ? `after ${c.written_by.join(', ')}` : 'before the first node'}</span>
            <span class="muted">${c.next.length > 0 ? `next: ${c.next.join(', ')}` : 'the end'}</span>
            <span class="muted">${when(c.created_at)}</span>
            ${
              acting && c.next.length > 0
                ? html`<button type="button" onClick=${() => setEditing({ id: c.id, text: pretty(c.values) })}>Fork from here</button>
                  <button type="button" onClick=${() => fork(c.id)}>Re-run from here</button>`
                : null
            }
          </div>
          ${
            editing?.id === c.id
              ? html`<form class="fork-form" aria-label="Fork from this checkpoint" onSubmit=${(
                  e,
                ) => {
                  e.preventDefault();
                  fork(c.id, editing.text);
                }}>
                <label class="field">State (JSON; fields written over the checkpoint's)
                  <textarea name="state" rows="6" class="mono" onInput=${(e) => setEditing({ id: c.id, text: e.currentTarget.value })}>${editing.text}</textarea></label>
                <div class="buttons">
                  <button type="button" onClick=${() => setEditing(null)}>Back</button>
                  <button type="submit" class="primary">Fork</button>
                </div>
              </form>`
              : html`<details><summary>State</summary><pre class="json">${pretty(c.values)}</pre></details>`
          }
        </li>`,
      )}
    </ol>
  `;
}

function Forked({ workflow, fork }) {
  const thread = `/ui/threads/${encodeURIComponent(workflow)}/${encodeURIComponent(fork.thread_id)}`;
  return html`<p class="forked" role="status" data-testid="forked">
    ${fork.derived_from.how === 'rerun' ? 'Re-ran' : 'Forked'} to thread <a href=${thread}>${fork.thread_id}</a>:
    run <a class="mono" href=${`/ui/runs/${encodeURIComponent(fork.run_id)}`}>${fork.run_id}</a>, ${fork.status}
    ${fork.state ? html`<pre class="json">${pretty(fork.state)}</pre>` : null}
    ${fork.interrupt ? html`<pre class="json">${pretty(fork.interrupt.payload)}</pre>` : null}
  </p>`;
}
