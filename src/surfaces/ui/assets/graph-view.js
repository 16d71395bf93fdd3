/**
 * A workflow's graph as SVG (graph-layout.js places it): nodes as boxes, edges as curves with
 * arrows, conditional edges dashed, and the targets LangGraph guessed (a conditional edge
 * without a path map) dotted and faint, with a note that says so. `WorkflowGraph` draws a run's workflow with where the run
 * is: nodes done (their `node.updated` events), the node waiting for an answer or a timer
 * (the thread's `next` once the run is interrupted or paused), the node that failed (named by
 * `run.failed`, #41, with or without a thread; else the thread's `next`), updated as the
 * run's events arrive.
 */
import { api } from './api.js';
import { END, layoutGraph, START } from './graph-layout.js';
import { html, useEffect, useMemo, useState } from './vendor/preact-htm.mjs';

const MARK_LABELS = { done: 'done', waiting: 'waiting', failed: 'failed' };

/** `graph` drawn; `marks` maps a node id to `done`, `waiting` or `failed`. */
export function GraphSvg({ name, graph, marks = {} }) {
  return html`<${Drawing} name=${name} graph=${graph} marks=${marks} /><${GuessedNote} graph=${graph} />`;
}

/** Which nodes branch without a path map: LangGraph drew every node as their target. */
function GuessedNote({ graph }) {
  const sources = [...new Set(graph.edges.filter((e) => e.guessed).map((e) => e.source))];
  if (sources.length === 0) return null;
  return html`<p class="graph-note muted" data-guessed=${sources.join(' ')}>
    Dotted: where ${sources.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`)} may go.
    ${sources.length === 1 ? 'Its conditional edge has' : 'Their conditional edges have'} no path
    map, so LangGraph does not know the targets and lists every node; give
    <code>addConditionalEdges</code> the targets to draw only those.</p>`;
}

function Drawing({ name, graph, marks }) {
  const layout = useMemo(() => layoutGraph(graph), [graph]);
  // Marker ids are document-wide: one per graph, or two graphs on a page share an arrow.
  const arrow = `arrow-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const marked = Object.entries(marks)
    .map(([id, mark]) => `${id} ${mark}`)
    .join(', ');
  return html`
    <svg class="graph" data-workflow=${name} width=${layout.width} height=${layout.height}
      viewBox=${`0 0 ${layout.width} ${layout.height}`} role="img"
      aria-label=${`Graph of ${name}: ${layout.nodes.length} nodes${marked ? `; ${marked}` : ''}`}>
      <defs>
        <marker id=${arrow} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"
          orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="arrow-head" /></marker>
      </defs>
      ${layout.edges.map(
        (edge) => html`
        <g class=${`edge${edge.conditional ? ' conditional' : ''}${edge.guessed ? ' guessed' : ''}${edge.back ? ' loop' : ''}`}
          data-source=${edge.source} data-target=${edge.target}>
          ${edge.guessed ? html`<title>${edge.source} may go to ${edge.target}: a guess (no path map)</title>` : null}
          <path d=${edge.path} marker-end=${`url(#${arrow})`} />
          ${edge.label ? html`<text x=${edge.labelAt.x} y=${edge.labelAt.y} class="edge-label">${edge.label}</text>` : null}
        </g>`,
      )}
      ${layout.nodes.map((node) => {
        const mark = marks[node.id];
        const ends = node.id === START || node.id === END;
        return html`
        <g class=${`node${ends ? ' terminal' : ''}${mark ? ` n-${mark}` : ''}`} data-node=${node.id}
          data-mark=${mark ?? ''}>
          <title>${node.id}${mark ? ` (${MARK_LABELS[mark]})` : ''}</title>
          <rect x=${node.x} y=${node.y} width=${node.w} height=${node.h} rx=${ends ? node.h / 2 : 6} />
          <text x=${node.x + node.w / 2} y=${node.y + node.h / 2} dominant-baseline="central"
            text-anchor="middle">${node.label}</text>
        </g>`;
      })}
    </svg>
  `;
}

let catalogRead = null;

/** The catalog, read once per page load for the graphs (a graph does not change while served). */
export function catalogOnce() {
  catalogRead ??= api('/catalog').catch((error) => {
    catalogRead = null; // a failed read is tried again by the next caller
    throw error;
  });
  return catalogRead;
}

/**
 * Where a run is, from its events: the nodes it finished, and how it stands now
 * (`running`, `interrupted`, `paused`, `failed`, `completed`, `cancelled`), with the thread
 * it runs on, and the node its `run.failed` names.
 */
export function runProgress(events) {
  const done = new Set();
  let stands = 'running';
  let thread = null;
  let lifecycleSeq = -1;
  let failedNode = null;
  for (const event of events) {
    const p = event.payload ?? {};
    if (event.kind === 'node.updated' && p.node) done.add(p.node);
    if (event.kind === 'run.failed') failedNode = p.node ?? null;
    const now = {
      'run.interrupted': 'interrupted',
      'run.paused': 'paused',
      'run.resumed': 'running',
      'run.failed': 'failed',
      'run.completed': 'completed',
      'run.cancelled': 'cancelled',
    }[event.kind];
    if (now) {
      stands = now;
      lifecycleSeq = event.seq;
    }
    if (event.kind === 'run.interrupted' && p.thread_id) thread = p.thread_id;
    if (event.kind === 'run.started') thread ??= event.session_id ?? null;
  }
  return { done, stands, thread, lifecycleSeq, failedNode };
}

/**
 * `workflow`'s graph with the run of `events` marked on it. The node a stopped run waits at
 * (or failed at) is the thread's `next`, read from the checkpointer each time the run stops.
 */
export function WorkflowGraph({ workflow, events, threadLink = true }) {
  const [graph, setGraph] = useState(null);
  const [problem, setProblem] = useState(null);
  const [next, setNext] = useState({ seq: -1, nodes: [] });
  const progress = runProgress(events);

  useEffect(() => {
    let live = true;
    catalogOnce()
      .then((catalog) => {
        const found = catalog.workflows.find((w) => w.name === workflow);
        if (live) found ? setGraph(found.graph) : setProblem(`No workflow '${workflow}' served.`);
      })
      .catch((error) => live && setProblem(error.message));
    return () => {
      live = false;
    };
  }, [workflow]);

  const stopped = ['interrupted', 'paused', 'failed'].includes(progress.stands);
  useEffect(() => {
    if (!stopped || !progress.thread) return;
    let live = true;
    const path = `/threads/${encodeURIComponent(workflow)}/${encodeURIComponent(progress.thread)}`;
    api(path)
      .then((state) => live && setNext({ seq: progress.lifecycleSeq, nodes: state.next }))
      // A workflow without a checkpointer has no thread to read: only the nodes done show.
      .catch(() => live && setNext({ seq: progress.lifecycleSeq, nodes: [] }));
    return () => {
      live = false;
    };
  }, [workflow, progress.thread, progress.lifecycleSeq, stopped]);

  if (problem) return html`<p class="muted">Graph unavailable: ${problem}</p>`;
  if (!graph) return html`<p class="muted">Loading the graph…</p>`;
  const marks = {};
  for (const node of progress.done) marks[node] = 'done';
  if (progress.stands === 'completed') marks[END] = 'done';
  if (progress.done.size > 0 || progress.stands !== 'running') marks[START] = 'done';
  if (progress.stands === 'failed' && progress.failedNode) {
    marks[progress.failedNode] = 'failed';
  } else if (stopped && next.seq === progress.lifecycleSeq) {
    for (const node of next.nodes)
      marks[node] = progress.stands === 'failed' ? 'failed' : 'waiting';
  }
  return html`
    <figure class="graph-figure">
      <${GraphSvg} name=${workflow} graph=${graph} marks=${marks} />
      <figcaption class="graph-legend muted">
        <span class="key k-done">done</span> <span class="key k-waiting">waiting</span>
        <span class="key k-failed">failed</span> <span class="key k-conditional">conditional edge</span>
        ${
          threadLink && progress.thread
            ? html`<a href=${`/ui/threads/${encodeURIComponent(workflow)}/${encodeURIComponent(progress.thread)}`}>its thread's state</a>`
            : null
        }
      </figcaption>
    </figure>
  `;
}
