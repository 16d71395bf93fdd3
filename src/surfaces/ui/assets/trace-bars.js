/**
 * A run's waterfall, computed from its canonical events in one pass: the run itself as the
 * top bar, then each model request (`model.call.started` → `model.call.completed`, tokens
 * from the completion, cost from the `usage.reported` of that model that follows), tool call
 * (`tool.call.started` → `tool.call.completed`, an error marked), workflow node
 * (`node.updated`: its `duration_ms` gives its start; without it, the previous node's end),
 * wait for a person (`run.interrupted` → `run.resumed`), pause (`run.paused` →
 * `run.resumed`), time in the queue (`run.queued` → `run.started`), and the failure
 * (`run.failed`, a mark). Times are epoch milliseconds; a bar still open ends at `now` (the
 * last event's time unless given). A run recorded before model requests were (no
 * `model.call.*` event) gets one bar per `usage.reported`, from the step before it: its start
 * is inferred, and said so. Pure: the page renders the bars (trace-view.js), tests read them.
 */

const STOPS = new Set([
  'run.paused',
  'run.interrupted',
  'run.cancelled',
  'run.failed',
  'run.completed',
]);

/**
 * The waterfall of `events` (a run's events, in seq order): `{ start, end, bars }`, the bars
 * sorted by start (the run's bar first), each
 * `{ id, kind, label, start, end, status, seq, events, ... }`.
 */
export function traceBars(events, now) {
  const bars = [];
  const model = new Map(); // call_id → its bar, while open
  const tools = new Map(); // call_id → its bar, while open
  const awaitingCost = []; // completed model bars no usage report was matched to yet
  const inferred = []; // model bars from usage reports, for a run without model.call.*
  let sawModelCalls = false;
  let run = null;
  let wait = null; // the open interrupt, pause or queue wait
  let lastNodeEnd = null;
  let stepEnd = null; // the end of the last step (for an inferred model request's start)
  let last = null;

  const open = (bar) => {
    bars.push(bar);
    return bar;
  };
  const close = (bar, ts, status) => {
    bar.end = ts;
    bar.status = status;
  };

  for (const event of events) {
    const ts = Date.parse(event.ts);
    if (!Number.isFinite(ts)) continue;
    last = last === null ? ts : Math.max(last, ts);
    const p = event.payload ?? {};
    if (run === null) {
      run = open({
        id: 'run',
        kind: 'run',
        label: event.payload?.invocable_type === 'workflow' ? 'Workflow run' : 'Run',
        start: ts,
        end: null,
        status: 'open',
        seq: event.seq,
        events: [event],
      });
      stepEnd = ts;
    }
    switch (event.kind) {
      case 'run.queued':
        wait = open(barOf(event, ts, 'wait', `Queued under key ${p.key}`, `queue-${event.seq}`));
        break;
      case 'run.started':
        if (run.events[0] !== event) run.events.push(event);
        if (wait?.id.startsWith('queue-')) {
          close(wait, ts, 'ok');
          wait = null;
        }
        stepEnd = ts;
        break;
      case 'model.call.started': {
        sawModelCalls = true;
        const bar = open(
          barOf(event, ts, 'model', p.model ?? 'model request', `model-${p.call_id}`),
        );
        bar.callId = p.call_id;
        bar.model = p.model ?? null;
        bar.tokens = null;
        bar.usd = null;
        model.set(p.call_id, bar);
        break;
      }
      case 'model.call.completed': {
        const bar = model.get(p.call_id);
        if (!bar) break;
        model.delete(p.call_id);
        bar.events.push(event);
        close(bar, ts, p.error ? 'error' : 'ok');
        bar.error = p.error ?? null;
        if (p.input_tokens !== null || p.output_tokens !== null) {
          bar.tokens = { input: p.input_tokens ?? 0, output: p.output_tokens ?? 0 };
        }
        awaitingCost.push(bar);
        stepEnd = ts;
        break;
      }
      case 'usage.reported': {
        const bar = costed(awaitingCost, p.model);
        if (bar) {
          bar.usd = p.usd ?? null;
          bar.tokens ??= { input: p.input_tokens, output: p.output_tokens };
          bar.events.push(event);
        } else if (!sawModelCalls) {
          const guess = barOf(
            event,
            stepEnd ?? ts,
            'model',
            p.model ?? 'model request',
            `usage-${event.seq}`,
          );
          close(guess, ts, 'ok');
          Object.assign(guess, {
            model: p.model ?? null,
            tokens: { input: p.input_tokens, output: p.output_tokens },
            usd: p.usd ?? null,
            inferred: true,
          });
          inferred.push(guess);
        }
        stepEnd = ts;
        break;
      }
      case 'tool.call.started': {
        // A call held (for an approval, a pause) and played after the answer starts again:
        // the bar is its play, the wait its own bar.
        const held = tools.get(p.call_id);
        if (held) {
          held.events.push(event);
          Object.assign(held, { start: ts, end: null, status: 'open', args: p.arguments });
          break;
        }
        const bar = open(barOf(event, ts, 'tool', p.name, `tool-${p.call_id}`));
        Object.assign(bar, { callId: p.call_id, name: p.name, args: p.arguments });
        tools.set(p.call_id, bar);
        break;
      }
      case 'tool.call.completed': {
        const bar =
          tools.get(p.call_id) ?? open(barOf(event, ts, 'tool', p.name, `tool-${p.call_id}`));
        tools.delete(p.call_id);
        if (bar.events[0] !== event) bar.events.push(event);
        close(bar, ts, p.error ? 'error' : 'ok');
        Object.assign(bar, {
          callId: p.call_id,
          name: p.name,
          output: p.output,
          error: p.error ?? null,
        });
        stepEnd = ts;
        break;
      }
      case 'node.updated': {
        const ran =
          typeof p.duration_ms === 'number' ? ts - p.duration_ms : (lastNodeEnd ?? stepEnd ?? ts);
        const bar = open(
          barOf(event, Math.max(run.start, Math.min(ran, ts)), 'node', p.node, `node-${event.seq}`),
        );
        close(bar, ts, 'ok');
        bar.timed = typeof p.duration_ms === 'number';
        lastNodeEnd = ts;
        stepEnd = ts;
        break;
      }
      case 'run.interrupted':
        wait = open(
          barOf(
            event,
            ts,
            'wait',
            p.reason === 'approval'
              ? `Approval of ${p.payload?.tool ?? 'a tool call'}`
              : 'Waiting for an answer',
            `wait-${event.seq}`,
          ),
        );
        break;
      case 'run.paused':
        wait = open(
          barOf(
            event,
            ts,
            'pause',
            p.reason ? `Paused: ${p.reason}` : 'Paused',
            `pause-${event.seq}`,
          ),
        );
        break;
      case 'run.resumed':
        if (wait) {
          wait.events.push(event);
          close(wait, ts, 'ok');
          wait = null;
        }
        stepEnd = ts;
        lastNodeEnd = ts;
        break;
      case 'run.failed': {
        const mark = open(
          barOf(event, ts, 'failure', `Failed: ${p.error_type}`, `failed-${event.seq}`),
        );
        close(mark, ts, 'error');
        mark.where = p.node ? `node ${p.node}` : p.tool ? `tool ${p.tool}` : null;
        break;
      }
    }
    if (STOPS.has(event.kind)) {
      // What was still running stopped with the run (for now, or for good).
      // A failure marks the failing tool's bar (every open bar when it names none).
      const failed = (bar) =>
        event.kind === 'run.failed' && (!p.tool || bar.name === p.tool) ? 'error' : 'cut';
      for (const bar of [...model.values(), ...tools.values()]) {
        if (bar.end === null) close(bar, ts, failed(bar));
      }
      if (
        event.kind === 'run.completed' ||
        event.kind === 'run.failed' ||
        event.kind === 'run.cancelled'
      ) {
        run.events.push(event);
        close(
          run,
          ts,
          event.kind === 'run.completed' ? 'ok' : event.kind === 'run.failed' ? 'error' : 'cut',
        );
        if (wait) {
          close(wait, ts, 'cut');
          wait = null;
        }
      }
    }
  }
  if (run === null) return { start: 0, end: 0, bars: [] };
  const end = Math.max(last, now ?? last);
  for (const bar of bars) if (bar.end === null) bar.end = end;
  if (!sawModelCalls) bars.push(...inferred);
  const rest = bars.slice(1).sort((a, b) => a.start - b.start || a.seq - b.seq);
  return { start: run.start, end, bars: [run, ...rest] };
}

function barOf(event, start, kind, label, id) {
  return { id, kind, label, start, end: null, status: 'open', seq: event.seq, events: [event] };
}

/** The latest completed model bar of `model` (any, when the report names none) still without a cost. */
function costed(awaiting, model) {
  for (let i = awaiting.length - 1; i >= 0; i--) {
    const bar = awaiting[i];
    if (!model || !bar.model || bar.model === model) {
      awaiting.splice(i, 1);
      return bar;
    }
  }
  return null;
}

/**
 * How much earlier than its tool bar a child run may start: the engine dispatches a tool
 * without waiting for the deck to record the call, so on a busy process the bar's start (when
 * `tool.call.started` was recorded) can trail the child's own start.
 */
const DISPATCH_SLACK_MS = 1000;

/**
 * Link each tool bar that ran a workflow to its child run: `children` (`GET /runs` rows
 * whose `run.started` names this run) by the tool name of their origin (`toolName(origin)`),
 * started within the bar (or just before it, `DISPATCH_SLACK_MS`), in order. Returns the
 * bars, those linked with `childRunId`.
 */
export function linkChildRuns(bars, children, toolName) {
  const unlinked = [...children];
  return bars.map((bar) => {
    if (bar.kind !== 'tool') return bar;
    const at = unlinked.findIndex((child) => {
      const started = Date.parse(child.started_at);
      return (
        toolName(child.origin) === bar.name &&
        started >= bar.start - DISPATCH_SLACK_MS &&
        started <= bar.end + 1
      );
    });
    if (at < 0) return bar;
    const [child] = unlinked.splice(at, 1);
    return { ...bar, childRunId: child.run_id };
  });
}
