/**
 * A conversation (`/ui/sessions/<id>`: its history from `GET /sessions/{id}`, in turns, each
 * beside the run that played it, from `GET /runs?session_id=`) and a workflow thread
 * (`/ui/threads/<workflow>/<thread>`: its state from the checkpointer, `GET /threads/...`,
 * the node it stands at on its graph, and its runs). Read-only; read again every 3 s.
 */
import { api, query } from './api.js';
import { pretty, runDuration, shortId, statusLabel, when } from './format.js';
import { catalogOnce, GraphSvg } from './graph-view.js';
import { ThreadCheckpoints } from './thread-checkpoints.js';
import { SleepingUntil, wakeAtOf } from './timer.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const REFRESH_MS = 3000;

/** Read `paths` now and every few seconds while the tab shows; `[values, error]`. */
function usePolled(paths) {
  const [values, setValues] = useState(null);
  const [error, setError] = useState(null);
  const key = paths.join(' ');
  useEffect(() => {
    let live = true;
    setValues(null);
    const load = () =>
      Promise.all(paths.map((path) => api(path).catch((e) => ({ failed: e }))))
        .then((read) => {
          if (!live) return;
          setValues(read);
          setError(null);
        })
        .catch((e) => live && e.status !== 401 && setError(e.message));
    load();
    const timer = setInterval(() => document.hidden || load(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [key]);
  return [values, error];
}

/** The history items in turns: each user message starts one. */
export function turnsOf(items) {
  const turns = [];
  for (const item of items) {
    if (item.type === 'message' && item.role === 'user') turns.push([item]);
    else if (turns.length === 0) turns.push([item]);
    else turns.at(-1).push(item);
  }
  return turns;
}

function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return pretty(content);
  return content
    .map((block) => (typeof block?.text === 'string' ? block.text : pretty(block)))
    .join('');
}

function Item({ item }) {
  if (item.type === 'message' || item.role) {
    const role = item.role ?? 'message';
    return html`<div class=${`bubble ${role === 'user' ? 'user' : 'assistant'}`}><span class="who">${role}</span>
      <div class=${`message-text ${role === 'user' ? 'user' : ''}`}>${contentText(item.content)}</div></div>`;
  }
  if (item.type === 'function_call')
    return html`<div class="tool-call"><div>Tool call <code>${item.name}</code></div><pre class="json">${prettyArgs(item.arguments)}</pre></div>`;
  if (item.type === 'function_call_result')
    return html`<div class="tool-call"><div>Result of <code>${item.name}</code></div><pre class="json">${
      item.output?.type === 'text' ? item.output.text : pretty(item.output)
    }</pre></div>`;
  return html`<details class="raw"><summary>${item.type ?? 'item'}</summary><pre>${pretty(item)}</pre></details>`;
}

function prettyArgs(text) {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
}

function RunsTable({ runs }) {
  if (runs.length === 0) return html`<p class="muted">No runs.</p>`;
  return html`
    <div class="table-wrap"><table class="run-table">
      <thead><tr><th class="c-status">Status</th><th class="c-id">Run</th><th>Origin</th><th class="c-time">Started</th><th class="num">Duration</th></tr></thead>
      <tbody>${runs.map(
        (run) => html`<tr key=${run.run_id} data-run-id=${run.run_id}>
          <td><span class=${`status s-${run.status}`}>${statusLabel(run.status)}</span></td>
          <td class="mono"><a href=${`/ui/runs/${encodeURIComponent(run.run_id)}`} title=${run.run_id}>${shortId(run.run_id)}</a></td>
          <td>${run.origin}</td><td>${when(run.started_at)}</td><td class="num">${runDuration(run)}</td></tr>`,
      )}</tbody>
    </table></div>
  `;
}

export function SessionPage({ sessionId }) {
  const [read, error] = usePolled([
    `/sessions/${encodeURIComponent(sessionId)}${query({ limit: 200 })}`,
    `/runs${query({ session_id: sessionId, limit: 100 })}`,
  ]);
  const [history, runList] = read ?? [];
  const failed = [history?.failed, runList?.failed].find((e) => e && e.status !== 401); // a 401: the key prompt
  const turns = history && !history.failed ? turnsOf(history.items) : [];
  // Oldest first; the history may hold only the latest turns, so turns and runs pair from the end.
  const runs = runList && !runList.failed ? [...runList.runs].reverse() : [];
  const runOf = (index) => runs[runs.length - (turns.length - index)];
  return html`
    <section class="page session">
      <p class="crumbs"><a href="/ui/sessions">Sessions</a> / session</p>
      <h1>Session <span class="mono">${sessionId}</span></h1>
      ${error || failed ? html`<p class="error" role="alert">${error ?? failed.message}</p>` : null}
      ${!read ? html`<p class="muted">Loading…</p>` : null}
      ${read && turns.length === 0 ? html`<p class="muted">No history in this session yet.</p>` : null}
      <ol class="chat session-turns" aria-label="Turns">
        ${turns.map((items, index) => {
          const run = runOf(index);
          return html`<li class="turn" key=${index} data-turn=${index}>
            <div class="turn-head muted">Turn ${index + 1}${run ? html` · <a class="mono" href=${`/ui/runs/${encodeURIComponent(run.run_id)}`}>${run.origin} ${shortId(run.run_id)}</a> <span class=${`status s-${run.status}`}>${statusLabel(run.status)}</span>` : null}</div>
            ${items.map((item, i) => html`<${Item} key=${i} item=${item} />`)}
          </li>`;
        })}
      </ol>
      <h2>Runs in this session</h2>
      ${runList && !runList.failed ? html`<${RunsTable} runs=${runList.runs} />` : null}
    </section>
  `;
}

export function ThreadPage({ workflow, threadId }) {
  const [read, error] = usePolled([
    `/threads/${encodeURIComponent(workflow)}/${encodeURIComponent(threadId)}`,
    `/runs${query({ session_id: threadId, origin: workflow, limit: 100 })}`,
  ]);
  const [graph, setGraph] = useState(null);
  useEffect(() => {
    catalogOnce()
      .then((catalog) =>
        setGraph(catalog.workflows.find((w) => w.name === workflow)?.graph ?? null),
      )
      .catch(() => setGraph(null));
  }, [workflow]);
  const [state, runList] = read ?? [];
  const marks = {};
  if (state && !state.failed) for (const node of state.next) marks[node] = 'waiting';
  return html`
    <section class="page thread">
      <p class="crumbs"><a href="/ui/sessions#threads">Threads</a> / <a href=${`/ui?origin=${encodeURIComponent(workflow)}`}>${workflow}</a> / thread</p>
      <h1>Thread <span class="mono">${threadId}</span> <span class="muted">of ${workflow}</span></h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${!read ? html`<p class="muted">Loading…</p>` : null}
      ${
        state?.failed && state.failed.status !== 401
          ? html`<p class="error" role="alert">${state.failed.status === 404 ? `No state for this thread (${state.failed.message})` : state.failed.message}</p>`
          : null
      }
      ${
        state && !state.failed
          ? html`
        <dl class="facts">
          <div><dt>Updated</dt><dd>${when(state.updated_at)}</dd></div>
          <div><dt>Next</dt><dd class="mono" data-testid="thread-next">${state.next.length > 0 ? state.next.join(', ') : 'nothing: it ended'}</dd></div>
          <div><dt>Waiting for</dt><dd data-testid="thread-waiting">${
            state.waiting.length === 0
              ? '–'
              : state.waiting.map((w, i) => {
                  const wakeAt = w.wake_at ?? wakeAtOf(w.payload);
                  return html`${i > 0 ? ', ' : ''}${wakeAt ? html`<${SleepingUntil} wakeAt=${wakeAt} />` : 'an answer'}`;
                })
          }</dd></div>
        </dl>
        ${state.waiting.filter((w) => !(w.wake_at ?? wakeAtOf(w.payload))).map((w) => html`<h4>It asks</h4><pre class="json">${pretty(w.payload)}</pre>`)}
        <h2>State</h2>
        <pre class="json thread-values">${pretty(state.values)}</pre>`
          : null
      }
      ${graph ? html`<h2>Graph</h2><div class="graph-box"><${GraphSvg} name=${workflow} graph=${graph} marks=${marks} /></div>` : null}
      <${ThreadCheckpoints} workflow=${workflow} threadId=${threadId} />
      <h2>Runs on this thread</h2>
      ${runList && !runList.failed ? html`<${RunsTable} runs=${runList.runs} />` : null}
    </section>
  `;
}
