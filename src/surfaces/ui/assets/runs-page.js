/**
 * Runs, newest first, live: every 2 s the list shown is read again from the top, as many
 * runs as are shown (new runs appear, statuses change, a run that left a status filter
 * goes), and "Older runs" continues after the last one shown with the exact cursor (`after` =
 * that read's `next`), so no run is skipped or listed twice however many start meanwhile.
 * Filters (status, origin, session) live in the URL, so a reload or a shared link keeps
 * them. Tokens and cost come from each run's detail, read again only when its `last_seq` moved.
 */
import { api, can, query } from './api.js';
import { AddToDataset } from './dataset-picker.js';
import { cost, runDuration, STATUSES, shortId, statusLabel, tokens, when } from './format.js';
import { navigate } from './nav.js';
import { html, useEffect, useLayoutEffect, useRef, useState } from './vendor/preact-htm.mjs';

const PAGE = 50;
/** The most runs one read returns (`GET /runs` caps `limit`): below, rows stay as last read. */
const MAX_READ = 500;
const REFRESH_MS = 2000;
const EMPTY = { rows: null, next: null, shown: PAGE, error: null };

/**
 * Reads started as the page loads, before the first render (main.js calls `readEarly`), so
 * the list does not wait for the page to draw itself first; each is used once.
 */
const early = new Map();

/** Start the first reads of the runs page at `search`, to be used by its first render. */
export function readEarly(search) {
  const filters = filtersOf(search);
  early.set('/health', api('/health'));
  early.set(
    `/runs${query({ ...filters, limit: PAGE })}`,
    api(`/runs${query({ ...filters, limit: PAGE })}`),
  );
  for (const read of early.values()) read.catch(() => {}); // each is awaited where it is used
}

function read(path) {
  const started = early.get(path);
  early.delete(path);
  return started ?? api(path);
}

function filtersOf(search) {
  const params = new URLSearchParams(search);
  return {
    status: params.get('status') ?? '',
    origin: params.get('origin') ?? '',
    session_id: params.get('session') ?? '',
  };
}

export function RunsPage({ search }) {
  const filters = filtersOf(search);
  const key = `${filters.status}|${filters.origin}|${filters.session_id}`;
  const [state, setState] = useState(EMPTY);
  const shown = useRef(PAGE); // how many runs the list holds, for the next read from the top
  const [usage, setUsage] = useState({});
  const [origins, setOrigins] = useState([]);
  // What is typed in the session field: its own state, or a refresh would reset it mid-typing.
  const [sessionDraft, setSessionDraft] = useState(filters.session_id);
  useEffect(() => setSessionDraft(filters.session_id), [filters.session_id]);
  const [, tick] = useState(0);
  const details = useRef(new Map()); // run_id -> last_seq whose detail was read
  const [selected, setSelected] = useState([]); // run ids ticked for a dataset
  useEffect(() => setSelected([]), [key]); // another filter: the ticks were for the old list
  const toggle = (runId) =>
    setSelected((ids) =>
      ids.includes(runId) ? ids.filter((id) => id !== runId) : [...ids, runId],
    );

  useEffect(() => {
    read('/health')
      .then((health) => setOrigins([...health.agents, ...health.workflows].sort()))
      .catch(() => {});
  }, []);

  useEffect(() => {
    let live = true;
    setState(EMPTY);
    shown.current = PAGE;
    const load = async () => {
      const limit = Math.min(shown.current, MAX_READ);
      try {
        const page = await read(`/runs${query({ ...filters, limit })}`);
        if (!live) return;
        setState((s) => {
          const next = fromTop(s, page);
          shown.current = Math.max(PAGE, next.rows.length);
          return { ...s, ...next, error: null };
        });
      } catch (error) {
        // A 401 is the key prompt's to say.
        if (live && error.status !== 401) setState((s) => ({ ...s, error: error.message }));
      }
    };
    load();
    const timer = setInterval(() => {
      if (document.hidden) return; // a tab in the background reads nothing
      load();
      tick((n) => n + 1); // durations of running runs move on
    }, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [key]);

  const rows = state.rows ?? [];
  const listed = state.rows !== null;
  useLayoutEffect(() => {
    // When the first list is in the document, its links and buttons live (bench/ui.bench.ts
    // reads it). A layout effect: a plain effect waits for a frame, up to 100 ms headless.
    if (listed && performance.getEntriesByName('agentdeck:runs-listed').length === 0) {
      performance.mark('agentdeck:runs-listed');
    }
  }, [listed]);
  useEffect(() => {
    const stale = rows.filter((run) => details.current.get(run.run_id) !== run.last_seq);
    for (const run of stale) details.current.set(run.run_id, run.last_seq);
    readDetails(stale, (detail) => setUsage((all) => ({ ...all, [detail.run_id]: detail.usage })));
  });

  const loadOlder = async () => {
    try {
      const page = await api(`/runs${query({ ...filters, limit: PAGE, after: state.next })}`);
      setState((s) => {
        const rows = withoutRepeats([...(s.rows ?? []), ...page.runs]);
        shown.current = rows.length;
        return { ...s, rows, next: page.next };
      });
    } catch (error) {
      setState((s) => ({ ...s, error: error.message }));
    }
  };

  const setFilter = (name, value) => {
    const next = { ...filters, [name]: value };
    navigate(
      `/ui${query({ status: next.status, origin: next.origin, session: next.session_id })}`,
      { replace: true },
    );
  };

  return html`
    <section class="page runs">
      <div class="page-head">
        <h1>Runs</h1>
        <${RunSearch} />
      </div>
      <form class="filters" aria-label="Filters" onSubmit=${(event) => {
        // Enter in the session field applies it (a change event may not come first).
        event.preventDefault();
        setFilter('session_id', event.currentTarget.elements.session.value.trim());
      }}>
        <label>Status
          <select name="status" value=${filters.status}
            onChange=${(event) => setFilter('status', event.currentTarget.value)}>
            <option value="">any</option>
            ${STATUSES.map((s) => html`<option value=${s}>${statusLabel(s)}</option>`)}
          </select>
        </label>
        <label>Origin
          <select name="origin" value=${filters.origin}
            onChange=${(event) => setFilter('origin', event.currentTarget.value)}>
            <option value="">any</option>
            ${[...new Set([...origins, filters.origin].filter(Boolean))].map(
              (o) => html`<option value=${o}>${o}</option>`,
            )}
          </select>
        </label>
        <label>Session or thread
          <input name="session" type="search" placeholder="any" value=${sessionDraft}
            onInput=${(event) => setSessionDraft(event.currentTarget.value)}
            onChange=${(event) => setFilter('session_id', event.currentTarget.value.trim())} />
        </label>
      </form>
      ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : null}
      ${can('run') && rows.length > 0 ? html`<${AddToDataset} runIds=${selected} onClear=${() => setSelected([])} />` : null}
      <${RunTable} rows=${rows} usage=${usage} loading=${state.rows === null}
        selected=${can('run') ? selected : null} onToggle=${toggle} />
      <div class="pager">
        ${
          state.next
            ? html`<button type="button" onClick=${loadOlder}>Older runs</button>`
            : state.rows !== null && rows.length > 0
              ? html`<span class="muted">${rows.length === 1 ? 'The only run is shown.' : `All ${rows.length} runs shown.`}</span>`
              : null
        }
      </div>
    </section>
  `;
}

function RunSearch() {
  const [id, setId] = useState('');
  const [missing, setMissing] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    const runId = id.trim();
    if (!runId) return;
    try {
      await api(`/runs/${encodeURIComponent(runId)}`);
      navigate(`/ui/runs/${encodeURIComponent(runId)}`);
    } catch (error) {
      setMissing(error.status === 404 ? `No run '${runId}'.` : error.message);
    }
  };
  return html`
    <form class="search" role="search" onSubmit=${submit}>
      <label class="visually-hidden" for="run-search">Run id</label>
      <input id="run-search" type="search" placeholder="Go to run id…" value=${id}
        onInput=${(event) => {
          setId(event.currentTarget.value);
          setMissing(null);
        }} />
      <button type="submit">Open</button>
      ${missing ? html`<span class="error" role="alert">${missing}</span>` : null}
    </form>
  `;
}

function RunTable({ rows, usage, loading, selected, onToggle }) {
  if (loading) return html`<p class="muted table-placeholder">Loading runs…</p>`;
  if (rows.length === 0) return html`<p class="muted table-placeholder">No runs yet.</p>`;
  return html`
    <div class="table-wrap">
      <table class="run-table">
        <thead>
          <tr>
            ${selected ? html`<th class="c-pick"><span class="visually-hidden">Select</span></th>` : null}
            <th class="c-status">Status</th><th class="c-id">Run</th><th>Origin</th>
            <th class="opt">Session / thread</th><th class="c-time opt">Started</th>
            <th class="num">Duration</th><th class="num opt">Tokens</th><th class="num opt">Cost</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (run) => html`
            <tr key=${run.run_id} data-run-id=${run.run_id} data-status=${run.status}>
              ${
                selected
                  ? html`<td class="c-pick"><input type="checkbox" checked=${selected.includes(run.run_id)}
                  aria-label=${`Select run ${shortId(run.run_id)}`} onChange=${() => onToggle(run.run_id)} /></td>`
                  : null
              }
              <td><span class="status s-${run.status}">${statusLabel(run.status)}</span></td>
              <td class="mono"><a href=${`/ui/runs/${encodeURIComponent(run.run_id)}`}
                title=${run.run_id}>${shortId(run.run_id)}</a></td>
              <td>${run.origin}</td>
              <td class="mono ellipsis opt" title=${run.session_id ?? ''}>${run.session_id ?? '–'}</td>
              <td class="opt" title=${run.started_at}>${when(run.started_at)}</td>
              <td class="num">${runDuration(run)}</td>
              <td class="num opt">${tokens(usage[run.run_id])}</td>
              <td class="num opt">${cost(usage[run.run_id])}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  `;
}

/**
 * The list after a read from the top. The runs the list held after the read's last one (new
 * runs pushed them past it, or an older page arrived meanwhile, or the list is longer than
 * one read) stay below it, with the cursor that continues them; otherwise the read is the
 * list and its `next` continues it. So a run leaves the list only when it left the filter.
 */
function fromTop(state, page) {
  const held = state.rows ?? [];
  const last = page.runs.at(-1)?.run_id;
  const from = last === undefined ? -1 : held.findIndex((run) => run.run_id === last);
  const rest = from >= 0 ? held.slice(from + 1) : [];
  if (rest.length === 0) return { rows: page.runs, next: page.next };
  return { rows: withoutRepeats([...page.runs, ...rest]), next: state.next };
}

function withoutRepeats(runs) {
  const seen = new Set();
  return runs.filter((run) => !seen.has(run.run_id) && seen.add(run.run_id));
}

const queue = [];
let reading = 0;

/** Read runs' details (usage), four at a time, so a page of 50 is no burst of 50 requests. */
function readDetails(runs, done) {
  queue.push(...runs.map((run) => ({ run, done })));
  while (reading < 4 && queue.length > 0) {
    const { run, done: each } = queue.shift();
    reading += 1;
    api(`/runs/${encodeURIComponent(run.run_id)}`)
      .then(each)
      .catch(() => {})
      .finally(() => {
        reading -= 1;
        readDetails([], each);
      });
  }
}
