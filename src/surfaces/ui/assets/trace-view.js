/**
 * The waterfall on a run's page (#41): one row per bar of trace-bars.js (the run, each model
 * request, tool call, node, wait and pause) on one time axis, its tokens and cost beside it;
 * a click opens what the bar sent and received below it (trace-detail.js). Rows have a fixed
 * height and only those in view (and a few around) are in the document, over a spacer as
 * tall as all of them, so a run of thousands of events draws as fast as a short one.
 */
import { snakeCase } from './child-runs.js';
import { duration } from './format.js';
import { linkChildRuns, traceBars } from './trace-bars.js';
import { BarDetail, usdText } from './trace-detail.js';
import { html, useEffect, useMemo, useRef, useState } from './vendor/preact-htm.mjs';

/** Each row's height in px (trace.css `.trace-row` says the same). */
const ROW = 26;
/** Rows the box shows before it scrolls. */
const SHOWN = 14;
/** Rows drawn beyond each edge of the view, so a fast scroll shows no blank. */
const SPARE = 8;
const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);

export function Trace({ events, children = [] }) {
  const trace = useMemo(() => traceBars(events), [events]);
  const bars = useMemo(
    () => (children.length > 0 ? linkChildRuns(trace.bars, children, snakeCase) : trace.bars),
    [trace, children],
  );
  const [selected, setSelected] = useState(null);
  useMarks(bars.length, events);
  if (bars.length === 0) return html`<p class="muted">No events yet.</p>`;
  const open = selected && bars.find((bar) => bar.id === selected);
  return html`
    <div class="trace" data-testid="trace">
      <${Axis} trace=${trace} />
      <${Rows} bars=${bars} trace=${trace} selected=${selected} onSelect=${setSelected} />
    </div>
    ${open ? html`<${BarDetail} bar=${open} events=${events} onClose=${() => setSelected(null)} />` : null}
  `;
}

/**
 * The page's own performance marks (bench/ui-trace.bench.ts reads them): the waterfall's
 * first bars drawn, then every event of an ended run drawn.
 */
function useMarks(count, events) {
  const marked = useRef({ drawn: false, complete: false });
  useEffect(() => {
    if (count > 0 && !marked.current.drawn) {
      marked.current.drawn = true;
      performance.mark('agentdeck:trace-drawn');
    }
    const last = events[events.length - 1];
    if (last && TERMINAL.has(last.kind) && !marked.current.complete) {
      marked.current.complete = true;
      performance.mark('agentdeck:trace-complete');
    }
  });
}

/** The time axis: the run's start at 0, four ticks, its length at the right. */
function Axis({ trace }) {
  const span = trace.end - trace.start;
  return html`
    <div class="trace-axis" aria-hidden="true">
      <span class="trace-name">${duration(span)} in all</span>
      <span class="trace-track">${[0, 0.25, 0.5, 0.75, 1].map(
        (at) =>
          html`<span class="tick" data-at=${at} style=${{ left: `${at * 100}%` }}>${duration(span * at)}</span>`,
      )}</span>
    </div>
  `;
}

function Rows({ bars, trace, selected, onSelect }) {
  const box = useRef(null);
  const [top, setTop] = useState(0);
  const frame = useRef(0);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  const onScroll = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      if (box.current) setTop(box.current.scrollTop);
    });
  };
  const first = Math.max(0, Math.floor(top / ROW) - SPARE);
  const last = Math.min(bars.length, Math.ceil(top / ROW) + SHOWN + SPARE);
  const span = Math.max(1, trace.end - trace.start);
  return html`
    <div class="trace-rows" ref=${box} onScroll=${onScroll} role="list" aria-label="Waterfall"
      data-rows=${bars.length} style=${{ height: `${Math.min(bars.length, SHOWN) * ROW + 2}px` }}>
      <div class="trace-spacer" style=${{ height: `${bars.length * ROW}px` }}>
        ${bars.slice(first, last).map(
          (bar, i) => html`<${Row} key=${bar.id} bar=${bar} index=${first + i} start=${trace.start}
            span=${span} selected=${bar.id === selected} onSelect=${onSelect} />`,
        )}
      </div>
    </div>
  `;
}

function Row({ bar, index, start, span, selected, onSelect }) {
  const left = ((bar.start - start) / span) * 100;
  const width = ((bar.end - bar.start) / span) * 100;
  const took = duration(bar.end - bar.start);
  return html`
    <div role="listitem" class="trace-line" style=${{ top: `${index * ROW}px` }}>
      <button type="button" class=${`trace-row k-${bar.kind} b-${bar.status}${selected ? ' selected' : ''}`}
        data-kind=${bar.kind} data-bar=${bar.id} aria-pressed=${selected ? 'true' : 'false'}
        title=${`${bar.label}: ${took}, from +${duration(bar.start - start)}${bar.inferred ? ' (start inferred)' : ''}`}
        onClick=${() => onSelect(selected ? null : bar.id)}>
        <span class="trace-name">
          <span class="trace-kind">${KIND_LABELS[bar.kind]}</span>
          <span class="trace-label">${bar.label}</span>
          <span class="trace-meta">${meta(bar, took)}</span>
        </span>
        <span class="trace-track">
          <span class="trace-bar" style=${{ left: `${left}%`, width: `${width}%` }}></span>
        </span>
      </button>
    </div>
  `;
}

const KIND_LABELS = {
  run: 'run',
  model: 'model',
  tool: 'tool',
  node: 'node',
  wait: 'wait',
  pause: 'pause',
  failure: 'failed',
};

/** Duration, tokens and cost where known, and what else a row should say at a glance. */
function meta(bar, took) {
  const parts = [bar.kind === 'failure' ? bar.where : took];
  if (bar.tokens) parts.push(`${bar.tokens.input + bar.tokens.output} tok`);
  if (typeof bar.usd === 'number') parts.push(usdText(bar.usd));
  if (bar.status === 'error' && bar.kind !== 'failure') parts.push('error');
  if (bar.status === 'cut') parts.push('stopped');
  if (bar.status === 'open') parts.push('running');
  if (bar.childRunId) parts.push('child run');
  return parts.filter(Boolean).join(' · ');
}
