/**
 * The sessions and threads (`/ui/sessions`, `/ui/threads`): every conversation and workflow
 * thread the recent runs played on, the latest activity first, each linking its page. Built
 * from `GET /runs`, since a session or a thread exists through its runs (the service keeps no
 * list of them): agents' runs grouped by session id, workflows' by workflow and thread id (the
 * workflows are those `GET /health` names). The latest 500 runs are read again every 5 s;
 * "Older runs" reads further with the exact cursor (`after` = the last read's `next`).
 */
import { api, query } from './api.js';
import { shortId, statusLabel, when } from './format.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const READ = 500;
const REFRESH_MS = 5000;

/**
 * `{ sessions, threads }` of `runs` (newest first): each `{ id, workflow, href, origins,
 * runs, last, active }`, where `last` is its newest run and `active` its latest update.
 */
export function groupRuns(runs, workflows) {
  const groups = new Map();
  for (const run of runs) {
    if (!run.session_id) continue;
    const workflow = workflows.has(run.origin) ? run.origin : null;
    const key = workflow ? `t ${workflow} ${run.session_id}` : `s ${run.session_id}`;
    let group = groups.get(key);
    if (!group) {
      const id = run.session_id;
      const href = workflow
        ? `/ui/threads/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}`
        : `/ui/sessions/${encodeURIComponent(id)}`;
      group = { id, workflow, href, origins: [], runs: 0, last: run, active: run.updated_at };
      groups.set(key, group);
    }
    group.runs += 1;
    if (!group.origins.includes(run.origin)) group.origins.push(run.origin);
    if (run.updated_at > group.active) group.active = run.updated_at;
  }
  const all = [...groups.values()].sort((a, b) => (a.active < b.active ? 1 : -1));
  return { sessions: all.filter((g) => !g.workflow), threads: all.filter((g) => g.workflow) };
}

export function SessionsIndex() {
  const [top, setTop] = useState(null); // the latest read of the newest runs: { runs, next }
  const [older, setOlder] = useState({ runs: [], next: null, read: false });
  const [workflows, setWorkflows] = useState(null);
  const [error, setError] = useState(null);
  const [find, setFind] = useState('');

  useEffect(() => {
    let live = true;
    api('/health')
      .then((health) => live && setWorkflows(new Set(health.workflows ?? [])))
      .catch(() => live && setWorkflows(new Set()));
    const load = () =>
      api(`/runs${query({ limit: READ })}`)
        .then((page) => {
          if (!live) return;
          setTop(page);
          setError(null);
        })
        .catch((e) => live && e.status !== 401 && setError(e.message)); // a 401: the key prompt
    load();
    const timer = setInterval(() => document.hidden || load(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  const next = older.read ? older.next : top?.next;
  const loadOlder = () =>
    api(`/runs${query({ limit: READ, after: next })}`)
      .then((page) =>
        setOlder((o) => ({ runs: [...o.runs, ...page.runs], next: page.next, read: true })),
      )
      .catch((e) => setError(e.message));

  if (!top || !workflows) {
    return html`<section class="page sessions-index"><h1>Sessions and threads</h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : html`<p class="muted">Loading…</p>`}</section>`;
  }
  const seen = new Set();
  const runs = [...top.runs, ...older.runs].filter(
    (r) => !seen.has(r.run_id) && seen.add(r.run_id),
  );
  const wanted = find.trim().toLowerCase();
  const shown = (g) =>
    !wanted || [g.id, ...g.origins].some((text) => text.toLowerCase().includes(wanted));
  const { sessions, threads } = groupRuns(runs, workflows);
  return html`
    <section class="page sessions-index">
      <div class="page-head">
        <h1>Sessions and threads</h1>
        <label class="find">Find <input type="search" name="find" placeholder="id or name"
          value=${find} onInput=${(e) => setFind(e.currentTarget.value)} /></label>
      </div>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <p class="muted">From the ${runs.length} latest run${runs.length === 1 ? '' : 's'}.</p>
      <h2 id="sessions">Sessions <span class="muted count">${sessions.length}</span></h2>
      <${Groups} groups=${sessions.filter(shown)} kind="session" />
      <h2 id="threads">Threads <span class="muted count">${threads.length}</span></h2>
      <${Groups} groups=${threads.filter(shown)} kind="thread" />
      <div class="pager">
        ${next ? html`<button type="button" onClick=${loadOlder}>Older runs</button>` : html`<span class="muted">Every run is counted.</span>`}
      </div>
    </section>
  `;
}

function Groups({ groups, kind }) {
  if (groups.length === 0) return html`<p class="muted">No ${kind}s.</p>`;
  return html`
    <div class="table-wrap"><table class="run-table groups" data-kind=${kind}>
      <thead><tr><th>${kind === 'session' ? 'Session' : 'Thread'}</th>
        <th>${kind === 'session' ? 'Agents' : 'Workflow'}</th><th class="num">Runs</th>
        <th class="c-status">Last run</th><th class="c-id"></th><th class="c-time">Last activity</th></tr></thead>
      <tbody>${groups.map(
        (g) => html`<tr key=${g.href} data-session=${g.id} data-workflow=${g.workflow ?? ''}>
          <td class="mono"><a href=${g.href} title=${g.id}>${g.id}</a></td>
          <td>${g.origins.join(', ')}</td>
          <td class="num">${g.runs}</td>
          <td><span class=${`status s-${g.last.status}`}>${statusLabel(g.last.status)}</span></td>
          <td class="mono"><a href=${`/ui/runs/${encodeURIComponent(g.last.run_id)}`} title=${g.last.run_id}>${shortId(g.last.run_id)}</a></td>
          <td>${when(g.active)}</td></tr>`,
      )}</tbody>
    </table></div>
  `;
}
