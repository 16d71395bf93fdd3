/**
 * One run: its header (status, timings, usage, cost, the run that called it, the schedule
 * that started it) from `GET /runs/{id}`, read again as its lifecycle events arrive, and its
 * timeline from the live event stream (event-stream.js: resumable, so a reload or a dropped
 * connection misses nothing). The actions (run-actions.js) sit in the header. A queued run
 * (a background run no worker took yet) shows its place in the queue: key, priority,
 * position among the waiting runs, attempts; Cancel takes it out before it starts.
 */
import { api } from './api.js';
import { childRuns } from './child-runs.js';
import { followEvents } from './event-stream.js';
import { cost, ENDED, runDuration, statusLabel, when } from './format.js';
import { WorkflowGraph } from './graph-view.js';
import { DerivedFrom, ReplayForm } from './replay-form.js';
import { RunActions } from './run-actions.js';
import { RunFailure } from './run-failure.js';
import { fold } from './timeline.js';
import { Timeline } from './timeline-view.js';
import { Trace } from './trace-view.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

/** Events after which the header is read again (its status or usage changed). */
const CHANGES_HEADER = /^run\.|^usage\.reported$|^control\.observed$/;

export function RunPage({ runId }) {
  const [run, setRun] = useState(null);
  const [missing, setMissing] = useState(null);
  const [timeline, setTimeline] = useState({ entries: [], events: [] });
  const [stream, setStream] = useState('connecting');

  useEffect(() => {
    let live = true;
    let reading = null;
    let again = false;
    const readHeader = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = api(`/runs/${encodeURIComponent(runId)}`)
        .then((detail) => live && setRun(detail))
        .catch((error) => {
          // Only a 404 replaces the page; a dropped connection or a 503 keeps the last header
          // (read again at the next event or tick), as the stream reconnects by itself.
          if (live && error.status === 404) setMissing(`No run '${runId}'.`);
        })
        .finally(() => {
          reading = null;
          if (again && live) {
            again = false;
            readHeader();
          }
        });
    };
    setRun(null);
    setMissing(null);
    setTimeline({ entries: [], events: [] });
    readHeader();
    // Events are folded in batches, one per 16 ms: a long run's catch-up (thousands of events
    // in one read) is a few renders, not one per event; while a batch is large (the catch-up
    // of a long run) the next waits 120 ms, so drawing does not crowd out reading.
    let batch = [];
    let flushing = null;
    let catchingUp = false;
    const flush = () => {
      const events = batch;
      batch = [];
      flushing = null;
      catchingUp = events.length > 100;
      if (!live) return;
      setTimeline((t) => ({
        entries: events.reduce(fold, t.entries),
        events: t.events.concat(events),
      }));
      // A catch-up's usage reports change nothing the first read of the header did not see.
      const changes = catchingUp ? /^run\./ : CHANGES_HEADER;
      if (events.some((event) => changes.test(event.kind))) readHeader();
    };
    const stop = followEvents(
      runId,
      (event) => {
        batch.push(event);
        flushing ??= setTimeout(flush, catchingUp ? 120 : 16);
      },
      setStream,
    );
    // A running run's duration moves on; a waiting one may be answered from elsewhere.
    const timer = setInterval(readHeader, 5000);
    return () => {
      live = false;
      clearTimeout(flushing);
      stop();
      clearInterval(timer);
    };
  }, [runId]);

  if (missing)
    return html`<section class="page"><h1>Run</h1><p class="error" role="alert">${missing}</p><p><a href="/ui">Back to the runs</a></p></section>`;
  const started =
    timeline.events.find((e) => e.kind === 'run.started' || e.kind === 'run.queued')?.payload ?? {};
  const children = useChildren(run, timeline.events);
  return html`
    <section class="page run">
      <p class="crumbs"><a href="/ui">Runs</a> / <span class="mono">${runId}</span></p>
      <${RunHeader} run=${run} started=${started} stream=${stream} children=${children} />
      ${run ? html`<${RunActions} run=${run} events=${timeline.events} />` : null}
      ${run ? html`<${ReplayForm} run=${run} started=${started} />` : null}
      ${run && started.invocable_type === 'workflow' ? html`<h2>Graph</h2><${WorkflowGraph} workflow=${run.origin} events=${timeline.events} />` : null}
      <${RunFailure} events=${timeline.events} />
      <h2>Trace</h2><${Trace} key=${runId} events=${timeline.events} children=${children} />
      <h2>Timeline <span class="muted count">${timeline.events.length} events</span></h2>
      <${Timeline} entries=${timeline.entries} />
    </section>
  `;
}

/** The child runs, looked for again each time one more of the run's tool calls completes. */
function useChildren(run, events) {
  const [children, setChildren] = useState([]);
  const tools = events.filter((e) => e.kind === 'tool.call.completed').map((e) => e.payload.name);
  const key = run ? `${run.run_id}:${tools.length}:${ENDED.has(run.status)}` : '';
  useEffect(() => {
    if (!run || tools.length === 0) return setChildren([]);
    const stop = new AbortController();
    childRuns(run, tools, stop.signal)
      .then(setChildren)
      .catch(() => {});
    return () => stop.abort();
  }, [key]);
  return children;
}

function RunHeader({ run, started, stream, children }) {
  if (!run)
    return html`<div class="run-header placeholder"><p class="muted">Loading the run…</p></div>`;
  const u = run.usage;
  return html`
    <div class="run-header">
      <div class="run-title">
        <span class="status big s-${run.status}" data-testid="run-status">${statusLabel(run.status)}</span>
        <h1>${run.origin}</h1>
        <span class=${`stream-state st-${stream}`} title="The event stream">${streamLabel(stream, run.status)}</span>
      </div>
      <dl class="facts">
        <div><dt>Run</dt><dd class="mono">${run.run_id}</dd></div>
        <div><dt>Kind</dt><dd>${started.invocable_type ?? '–'}</dd></div>
        <div><dt>${started.invocable_type === 'workflow' ? 'Thread' : 'Session'}</dt><dd class="mono">${
          run.session_id
            ? html`<a href=${historyOf(run, started)} data-testid="run-history">${run.session_id}</a>`
            : '–'
        }</dd></div>
        <div><dt>${run.queue ? 'Queued' : 'Started'}</dt><dd>${when(run.started_at)}</dd></div>
        <div><dt>${ENDED.has(run.status) ? 'Ended' : 'Last event'}</dt><dd>${when(run.updated_at)}</dd></div>
        <div><dt>${run.status === 'queued' ? 'Waiting' : 'Duration'}</dt><dd>${runDuration(run)}</dd></div>
        <div><dt>Tokens</dt><dd>${u.total_tokens} <span class="muted">(${u.input_tokens} in, ${u.output_tokens} out)</span></dd></div>
        <div><dt>Model requests</dt><dd>${u.requests}</dd></div>
        <div><dt>Cost</dt><dd>${cost(u)}</dd></div>
        ${started.parent_run_id ? html`<div><dt>Called by</dt><dd class="mono"><a href=${`/ui/runs/${encodeURIComponent(started.parent_run_id)}`}>${started.parent_run_id}</a></dd></div>` : null}
        ${
          children.length > 0
            ? html`<div><dt>Child runs</dt><dd class="mono">${children.map(
                (child) =>
                  html`<a href=${`/ui/runs/${encodeURIComponent(child.run_id)}`}>${child.run_id}</a> `,
              )}</dd></div>`
            : null
        }
        ${started.derived_from ? html`<${DerivedFrom} from=${started.derived_from} />` : null}
        ${started.schedule ? html`<div><dt>Schedule</dt><dd><code>${started.schedule}</code> <span class="muted">fired ${when(started.fired_at)}</span></dd></div>` : null}
        ${run.queue ? html`<${QueuePlace} queue=${run.queue} />` : null}
        ${run.namespace ? html`<div><dt>Namespace</dt><dd class="mono">${run.namespace}</dd></div>` : null}
      </dl>
    </div>
  `;
}

/** Where a queued run waits (`queue` of `GET /runs/{id}`). */
function QueuePlace({ queue }) {
  return html`
    <div data-testid="queue-key"><dt>Queue key</dt><dd class="mono">${queue.key}</dd></div>
    <div data-testid="queue-priority"><dt>Priority</dt><dd>${queue.priority}</dd></div>
    <div data-testid="queue-position"><dt>Position</dt><dd>${
      queue.position === null || queue.position === undefined
        ? 'taken by a worker'
        : queue.position === 0
          ? 'next'
          : `${queue.position} ahead`
    }</dd></div>
    <div data-testid="queue-attempts"><dt>Attempts</dt><dd>${queue.attempts}</dd></div>
  `;
}

/** The page of the run's session (an agent's) or thread (a workflow's). */
function historyOf(run, started) {
  const id = encodeURIComponent(run.session_id);
  return started.invocable_type === 'workflow'
    ? `/ui/threads/${encodeURIComponent(run.origin)}/${id}`
    : `/ui/sessions/${id}`;
}

function streamLabel(stream, status) {
  if (stream === 'live') return ENDED.has(status) ? 'live' : '● live';
  if (stream === 'ended') return 'all events';
  if (stream === 'refused') return 'no key';
  return `${stream}…`;
}
