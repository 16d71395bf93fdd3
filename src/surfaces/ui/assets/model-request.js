/**
 * One model request rebuilt from the run's events (#41): what was sent
 * (`model.call.started`: the model, its settings, and the instructions, tools offered and
 * messages as digests) and what came back (`model.call.completed`). A large value is stored
 * once per run, in the `values` of the first `model.call.started` that sent it, so a digest
 * is resolved from this run's earlier (and this) requests. A digest no event holds (a request
 * recorded with `detail: metadata`, or a log pruned in part) is kept as such, marked missing.
 */

/**
 * The request `callId` of a run's `events`: `{ callId, model, settings, detail,
 * instructions, tools, messages, response, seq, ts }`, each value `{ digest, value, missing }`,
 * `response` the completion's payload (`null` while it runs); `null` when no event starts it.
 */
export function modelRequest(events, callId) {
  const values = new Map();
  let started = null;
  let response = null;
  for (const event of events) {
    if (event.kind === 'model.call.started' && !started) {
      for (const [digest, value] of Object.entries(event.payload?.values ?? {})) {
        if (!values.has(digest)) values.set(digest, value);
      }
      if (event.payload?.call_id === callId) started = event;
    } else if (event.kind === 'model.call.completed' && event.payload?.call_id === callId) {
      response = event.payload;
      break;
    }
  }
  if (!started) return null;
  const p = started.payload;
  const resolve = (digest) =>
    values.has(digest)
      ? { digest, value: values.get(digest), missing: false }
      : { digest, value: undefined, missing: true };
  return {
    callId,
    model: p.model ?? null,
    settings: p.settings ?? {},
    detail: p.detail ?? 'full',
    instructions: p.instructions ? resolve(p.instructions) : null,
    tools: (p.tools ?? []).map(resolve),
    messages: (p.messages ?? []).map(resolve),
    response,
    seq: started.seq,
    ts: started.ts,
  };
}
