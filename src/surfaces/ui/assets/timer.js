/**
 * A workflow timer (`sleepUntil()`), named one way on every page: "Sleeping until <time>".
 * The API shows it in three shapes, kept as they are on the wire: an answer's or the inbox's
 * `pending` payload (`{"type": "agentdeck.timer", "wake_at": ...}`), a thread's waiting
 * value (`{"agentdeck:sleepUntil": ...}`, with its `wake_at`) and the `run.paused` reason
 * (`sleeping until ...`). `wakeAtOf` reads any of them; `SleepingUntil` shows it.
 */
import { when } from './format.js';
import { html } from './vendor/preact-htm.mjs';

const REASON = 'sleeping until ';

/** The wake time (ISO 8601) a timer's payload, waiting value or pause reason carries; else null. */
export function wakeAtOf(value) {
  if (typeof value === 'string')
    return value.startsWith(REASON) ? value.slice(REASON.length) : null;
  if (typeof value !== 'object' || value === null) return null;
  if (value.type === 'agentdeck.timer' && typeof value.wake_at === 'string') return value.wake_at;
  const raw = value['agentdeck:sleepUntil'];
  return typeof raw === 'string' ? raw : null;
}

/** "Sleeping until <time>", the exact time on hover and in `datetime`. */
export function SleepingUntil({ wakeAt }) {
  return html`<span class="timer">Sleeping until <time datetime=${wakeAt} title=${wakeAt}>${when(wakeAt)}</time></span>`;
}
