/**
 * The playground's chat: a turn with any agent in a session of the user's choosing. The
 * answer streams token by token from the chat route's own frames (chat-stream.js); the tool
 * calls, which that stream does not carry, come from the run's canonical events, followed
 * beside it (event-stream.js). A tool call held for approval shows inline with Approve and
 * Reject (`POST /runs/{id}/answer` naming the call); the chat stream ends there, so the rest
 * of the turn (the call's result, the text after it) is read from the run's events: text
 * deltas from that stream are used only after a `run.resumed`, when the chat stream is over.
 *
 * The two streams run at their own pace, so a tool call is placed by the length of the text
 * before it in the run's events (the same deltas as the chat's), not by when it arrives: the
 * turn is one text and calls at offsets into it, and the text is cut at those offsets.
 */
import { can } from './api.js';
import { ApprovalButtons, useApprovalAnswer } from './approval-answer.js';
import { streamChat } from './chat-stream.js';
import { followEvents } from './event-stream.js';
import { pretty, shortId } from './format.js';
import { textOf } from './timeline.js';
import { html, useEffect, useRef, useState } from './vendor/preact-htm.mjs';

const newSession = () => `playground-${Math.random().toString(36).slice(2, 8)}`;
const OPEN = new Set(['sending', 'streaming', 'waiting']);

export function PlaygroundChat({ agents, initialAgent }) {
  // `?agent=` names one of the catalog's, or the first is chosen.
  const [agent, setAgent] = useState(() =>
    agents.some((a) => a.name === initialAgent) ? initialAgent : (agents[0]?.name ?? ''),
  );
  const [sessionId, setSessionId] = useState(newSession);
  const [message, setMessage] = useState('');
  const [turns, setTurns] = useState([]);
  const stops = useRef([]);
  useEffect(
    () => () => {
      for (const stop of stops.current) stop();
    },
    [],
  );

  const change = (index, update) =>
    setTurns((all) => all.map((turn, i) => (i === index ? { ...turn, ...update(turn) } : turn)));
  const busy = turns.some((turn) => OPEN.has(turn.status));

  const send = async (event) => {
    event.preventDefault();
    const text = message.trim();
    if (!text || !agent || busy) return;
    const index = turns.length;
    setTurns((all) => [
      ...all,
      { agent, sessionId, message: text, text: '', parts: [], status: 'sending' },
    ]);
    setMessage('');
    // Read from the run's events as they come: where the text stands, whether it resumed.
    const seen = { resumed: false, textLength: 0 };
    const onEvent = (ev) => {
      const at = { offset: seen.textLength, resumed: seen.resumed || ev.kind === 'run.resumed' };
      if (ev.kind === 'text.delta') seen.textLength += ev.payload.text.length;
      seen.resumed = at.resumed;
      change(index, (turn) => fromRunEvent(turn, ev, at));
    };
    try {
      await streamChat(agent, sessionId, text, {
        onRun: (runId) => {
          change(index, () => ({ runId, status: 'streaming' }));
          if (runId) stops.current.push(followEvents(runId, onEvent, () => {}));
        },
        onFrame: (frame) => change(index, (turn) => fromChatFrame(turn, frame)),
      });
    } catch (error) {
      change(index, () => ({
        status: 'refused',
        error: `${error.status ?? ''} ${error.message}`.trim(),
      }));
    }
  };

  const answered = (index, outcome) =>
    change(index, (turn) => {
      // The next held call, placed after the text so far (its run.interrupted places it exactly).
      if (outcome.pending) return withApproval(turn, outcome.pending, turn.text.length);
      if (outcome.status === 'completed') return { status: 'done', output: outcome.result?.output };
      return { status: outcome.status === 'waiting_human' ? 'waiting' : outcome.status };
    });

  return html`
    <form class="playground-form" aria-label="Chat with an agent" onSubmit=${send}>
      <div class="row">
        <label>Agent
          <select name="agent" value=${agent} onChange=${(e) => setAgent(e.currentTarget.value)}>
            ${agents.map((a) => html`<option value=${a.name}>${a.name}</option>`)}
          </select>
        </label>
        <label>Session
          <input name="session" class="mono" value=${sessionId} required
            onInput=${(e) => setSessionId(e.currentTarget.value.trim())} />
        </label>
        <button type="button" disabled=${busy} onClick=${() => {
          setSessionId(newSession());
          setTurns([]);
        }}>New session</button>
        ${sessionId ? html`<a class="side-link" href=${`/ui/sessions/${encodeURIComponent(sessionId)}`}>Its history</a>` : null}
      </div>
      <ol class="chat" aria-label="Conversation" aria-live="polite">
        ${turns.map((turn, index) => html`<${Turn} key=${index} turn=${turn} onAnswered=${(outcome) => answered(index, outcome)} />`)}
      </ol>
      ${
        can('run')
          ? html`<div class="row composer">
              <label class="visually-hidden" for="chat-message">Message</label>
              <textarea id="chat-message" name="message" rows="2" placeholder="Say something to the agent…"
                value=${message} onInput=${(e) => setMessage(e.currentTarget.value)}
                onKeyDown=${(e) => {
                  if (e.key === 'Enter' && !e.shiftKey) send(e);
                }}></textarea>
              <button type="submit" class="primary" disabled=${busy || !message.trim()}>Send</button>
            </div>`
          : html`<p class="muted">Read-only: this page starts no turns.</p>`
      }
    </form>
  `;
}

/** The turn after one frame of the chat stream. */
function fromChatFrame(turn, { event, data }) {
  switch (event) {
    case 'message':
      return typeof data.delta === 'string' ? { text: turn.text + data.delta } : {};
    case 'done':
      return { status: 'done', output: data.output, usage: data.usage };
    case 'approval':
      return withApproval(turn, data, turn.text.length);
    case 'paused':
    case 'waiting':
      return { status: data.status === 'waiting_human' ? 'waiting' : 'paused' };
    case 'error':
      return { status: 'failed', error: data.error };
    default:
      return {};
  }
}

/**
 * The turn after one of its run's events (tool calls; text once the chat stream is over).
 * `at`: the length of the run's text before this event, and whether the run resumed yet.
 */
function fromRunEvent(turn, event, at) {
  const p = event.payload ?? {};
  switch (event.kind) {
    case 'tool.call.started': {
      if (turn.parts.some((part) => part.type === 'tool' && part.callId === p.call_id)) return {};
      const call = { type: 'tool', callId: p.call_id, name: p.name, args: p.arguments };
      return { parts: placed(turn.parts, { ...call, offset: at.offset }) };
    }
    case 'tool.call.completed': {
      const done = { output: p.output, error: p.error ?? null, done: true };
      const found = turn.parts.findIndex(
        (part) => part.type === 'tool' && part.callId === p.call_id,
      );
      if (found < 0) {
        const call = { type: 'tool', callId: p.call_id, name: p.name, offset: at.offset };
        return { parts: placed(turn.parts, { ...call, ...done }) };
      }
      return { parts: turn.parts.map((part, i) => (i === found ? { ...part, ...done } : part)) };
    }
    case 'run.resumed':
      return turn.status === 'paused' ? { status: 'streaming' } : {};
    case 'text.delta':
      return at.resumed ? { text: turn.text + p.text } : {};
    case 'run.interrupted':
      if (p.reason !== 'approval') return {};
      return withApproval(
        turn,
        {
          run_id: event.run_id,
          reason: 'approval',
          payload: p.payload,
          ...(p.answer_schema ? { answer_schema: p.answer_schema } : {}),
        },
        at.offset,
        true,
      );
    case 'run.completed':
      // Its usage is the whole turn's, approvals included (the chat's `done` may not come).
      if (turn.status === 'done') return { usage: p.usage ?? turn.usage };
      return { status: 'done', output: textOf(p.output), usage: p.usage ?? turn.usage };
    case 'run.failed':
      return { status: 'failed', error: p.error_type ?? 'failed' };
    case 'run.cancelled':
      return { status: 'cancelled' };
    default:
      return {};
  }
}

/** A call's part among the others: by its offset into the text, a call before its approval. */
function placed(parts, part) {
  const rank = (p) => p.offset * 2 + (p.type === 'approval' ? 1 : 0);
  return [...parts, part].sort((a, b) => rank(a) - rank(b));
}

/**
 * The turn waiting on `item` (a held tool call), shown once however many times it is heard
 * of; `exact`: the offset is from the run's events, which moves one placed by a guess.
 */
function withApproval(turn, item, offset, exact = false) {
  // Heard of late (the run's events lag the answer's response): the turn may be over already.
  const status = OPEN.has(turn.status) || turn.status === 'paused' ? 'waiting' : turn.status;
  const callId = item.payload?.call_id;
  const known = turn.parts.find((part) => part.type === 'approval' && part.callId === callId);
  if (!known) {
    return { status, parts: placed(turn.parts, { type: 'approval', callId, item, offset }) };
  }
  if (!exact || known.offset === offset) return { status };
  const others = turn.parts.filter((part) => part !== known);
  return { status, parts: placed(others, { ...known, offset }) };
}

/** The turn's text cut at its calls' offsets: `[{ type: 'text', text }, call, ...]`. */
function pieces(turn) {
  const out = [];
  let from = 0;
  for (const part of turn.parts) {
    const to = Math.max(from, Math.min(part.offset, turn.text.length));
    if (to > from) out.push({ type: 'text', text: turn.text.slice(from, to) });
    out.push(part);
    from = to;
  }
  if (turn.text.length > from) out.push({ type: 'text', text: turn.text.slice(from) });
  return out;
}

function Turn({ turn, onAnswered }) {
  const ended = !OPEN.has(turn.status);
  return html`
    <li class="turn" data-status=${turn.status} data-run-id=${turn.runId ?? ''}>
      <div class="bubble user"><span class="who">you</span><div class="message-text user">${turn.message}</div></div>
      <div class="bubble assistant">
        <span class="who">${turn.agent}
          ${turn.runId ? html` · <a class="mono" href=${`/ui/runs/${encodeURIComponent(turn.runId)}`} title=${turn.runId}>run ${shortId(turn.runId)}</a>` : null}
          ${' '}<span class=${`status s-${statusClass(turn.status)}`}>${turn.status}</span></span>
        ${pieces(turn).map((part, i) => html`<${Part} key=${part.callId ? `${part.type}-${part.callId}` : `text-${i}`} part=${part} runId=${turn.runId} onAnswered=${onAnswered} />`)}
        ${turn.status === 'streaming' ? html`<span class="streaming">streaming…</span>` : null}
        ${turn.error ? html`<p class="error" role="alert">${turn.error}</p>` : null}
        ${turn.usage ? html`<p class="muted turn-usage">${turn.usage.total_tokens} tokens, ${turn.usage.requests} model request${turn.usage.requests === 1 ? '' : 's'}</p>` : null}
        ${ended && turn.status === 'done' && turn.text === '' && turn.output ? html`<div class="message-text">${typeof turn.output === 'string' ? turn.output : pretty(turn.output)}</div>` : null}
      </div>
    </li>
  `;
}

function statusClass(status) {
  return (
    {
      done: 'completed',
      streaming: 'running',
      sending: 'pending',
      waiting: 'waiting_human',
      refused: 'failed',
    }[status] ?? status
  );
}

function Part({ part, runId, onAnswered }) {
  if (part.type === 'text') return html`<div class="message-text part-text">${part.text}</div>`;
  if (part.type === 'tool')
    return html`
      <div class="tool-call" data-call-id=${part.callId} data-tool=${part.name}>
        <div>Tool call <code>${part.name}</code> ${part.done ? (part.error ? html`<span class="bad">failed</span>` : html`<span class="muted">done</span>`) : html`<span class="streaming">running…</span>`}</div>
        <pre class="json">${pretty(part.args)}</pre>
        ${part.done ? html`<pre class=${`json ${part.error ? 'bad' : ''}`}>${pretty(part.error ?? part.output)}</pre>` : null}
      </div>`;
  return html`<${Approval} part=${part} runId=${runId} onAnswered=${onAnswered} />`;
}

function Approval({ part, runId, onAnswered }) {
  const approval = useApprovalAnswer(
    part.item.run_id ?? runId,
    part.callId,
    onAnswered,
    part.item.answer_schema,
  );
  const payload = part.item.payload ?? {};
  return html`
    <div class="approval" data-call-id=${part.callId} data-answer=${approval.answer ?? ''}>
      <div><span class="badge b-approval">needs approval</span> <code>${payload.tool}</code></div>
      <pre class="json">${pretty(payload.arguments)}</pre>
      <${ApprovalButtons} approval=${approval} callId=${part.callId}
        readOnly="Read-only: answer it in the inbox of a page that may act." />
    </div>
  `;
}
