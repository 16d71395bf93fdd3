/**
 * A run's timeline, folded from its canonical events as they arrive: streamed text deltas
 * become one message, a tool call's start and completion one entry, a control request its
 * own line, and so on. Each entry keeps the events it was made of (its raw JSON is one click
 * away), and an event of a kind this page does not know becomes an entry of its own: nothing
 * is dropped. `fold` returns a new list (the page re-renders only what changed).
 */

/** Add `event` to `entries` (the timeline so far); returns the new timeline. */
export function fold(entries, event) {
  const p = event.payload ?? {};
  const by = (type, id) => entries.findLastIndex((e) => e.type === type && e.id === id);
  const update = (index, change) =>
    entries.map((e, i) => (i === index ? { ...e, ...change(e), events: [...e.events, event] } : e));
  const add = (entry) => [...entries, { ...entry, seq: event.seq, ts: event.ts, events: [event] }];

  switch (event.kind) {
    case 'text.delta':
    case 'thought.delta': {
      const type = event.kind === 'text.delta' ? 'message' : 'thought';
      const at = by(type, p.message_id);
      if (at < 0) return add({ type, id: p.message_id, text: p.text, done: false });
      return update(at, (e) => ({ text: e.text + p.text, cut: null }));
    }
    case 'message.completed': {
      const text = textOf(p.content);
      const at = by('message', p.message_id);
      if (at < 0)
        return add({ type: 'message', id: p.message_id, text, done: true, content: p.content });
      // The completed content is the authority: it replaces what the deltas assembled.
      return update(at, (e) => ({ text: text || e.text, done: true, content: p.content }));
    }
    case 'tool.call.started': {
      // A call held (for an approval, a pause) and played after the answer may start twice.
      const at = by('tool', p.call_id);
      if (at >= 0 && !entries[at].done) return update(at, () => ({ args: p.arguments, cut: null }));
      return add({ type: 'tool', id: p.call_id, name: p.name, args: p.arguments, done: false });
    }
    case 'tool.call.completed': {
      const at = by('tool', p.call_id);
      const result = { output: p.output, error: p.error ?? null, done: true };
      if (at < 0) return add({ type: 'tool', id: p.call_id, name: p.name, ...result });
      return update(at, () => result);
    }
    case 'control.observed': {
      const at = by('control', p.request_id);
      if (at >= 0) return update(at, () => ({ observed: event.ts }));
      return add({ type: 'control', id: p.request_id, verb: p.verb, observed: event.ts });
    }
    case 'control.requested':
      return add({ type: 'control', id: p.request_id, verb: p.verb, reason: p.reason });
    default: {
      const added = add({ type: KNOWN.has(event.kind) ? event.kind : 'unknown', payload: p });
      return STOPS[event.kind] ? stopped(added, event) : added;
    }
  }
}

/** What each event that stops the run (for now or for good) says of it. */
const STOPS = {
  'run.paused': { cut: 'the run paused', effect: { pause: 'paused' } },
  'run.interrupted': { cut: 'the run stopped to wait' },
  'run.resumed': { effect: { resume: 'resumed' } },
  'run.cancelled': {
    cut: 'the run was cancelled',
    effect: { cancel: 'cancelled' },
    ended: 'cancelled',
  },
  'run.failed': { cut: 'the run failed', ended: 'failed' },
  'run.completed': { cut: 'the run ended', ended: 'completed' },
};

/**
 * The timeline once `event` stopped the run: a message still streaming was cut off (a
 * pause cuts a reply short and never completes it; a resume asks again under a new message
 * id), and a control request has its outcome: its effect, or the run's end before it acted.
 */
function stopped(entries, event) {
  const stop = STOPS[event.kind];
  const requestId = event.payload?.request_id ?? null;
  return entries.map((e) => {
    if ((e.type === 'message' || e.type === 'tool') && !e.done && !e.cut && stop.cut) {
      return { ...e, cut: stop.cut };
    }
    if (e.type !== 'control' || e.outcome) return e;
    const effect = stop.effect?.[e.verb];
    if (effect && (e.verb !== 'resume' || !requestId || requestId === e.id)) {
      return { ...e, outcome: { text: `the run ${effect}`, seq: event.seq } };
    }
    if (stop.ended) {
      return { ...e, outcome: { text: `the run ended (${stop.ended}) first`, seq: event.seq } };
    }
    return e;
  });
}

const KNOWN = new Set([
  'run.queued',
  'run.started',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.paused',
  'run.resumed',
  'run.interrupted',
  'node.updated',
  'usage.reported',
  'status.reported',
  'progress.reported',
  'artifact.created',
  'model.call.started',
  'model.call.completed',
  'score.recorded',
]);

/** The text of content blocks (text blocks joined; other blocks are shown as JSON). */
export function textOf(blocks) {
  if (!Array.isArray(blocks)) return '';
  return blocks
    .filter((b) => b?.type === 'text')
    .map((b) => b.text)
    .join('');
}
