/**
 * Approve or reject a tool call held for approval, with an optional reason to reject: the
 * playground's inline approvals and the inbox's cards share it. The answer is
 * `POST /runs/{run_id}/answer` with `{"value": {"approved", "call_id", "reason"?}}`; naming
 * the call makes a retry a 409, never an answer to the run's next held call.
 */
import { api, can } from './api.js';
import { html, useState } from './vendor/preact-htm.mjs';

/**
 * The state of one held call's answer: `answer` (`approved`, `rejected` or null), `sending`,
 * `refused` (the API's refusal), the `reason` typed, and `send(approved)`, which calls
 * `onAnswered(outcome, approved)` with the answer route's outcome.
 */
export function useApprovalAnswer(runId, callId, onAnswered) {
  const [reason, setReason] = useState('');
  const [state, setState] = useState({ sending: false, answer: null, refused: null });
  const send = async (approved) => {
    setState({ sending: true, answer: null, refused: null });
    const value = { approved, call_id: callId };
    if (!approved && reason.trim()) value.reason = reason.trim();
    try {
      const outcome = await api(`/runs/${encodeURIComponent(runId)}/answer`, {
        method: 'POST',
        body: { value },
      });
      setState({ sending: false, answer: approved ? 'approved' : 'rejected', refused: null });
      onAnswered(outcome, approved);
    } catch (e) {
      setState({ sending: false, answer: null, refused: `${e.status ?? ''} ${e.message}`.trim() });
    }
  };
  return { ...state, reason, setReason, send };
}

/** Approve, a reason, Reject (or what was answered; or `readOnly`, the note a read-only page shows). */
export function ApprovalButtons({ approval, callId, readOnly }) {
  const id = `reason-${callId}`;
  return html`
    ${
      approval.answer
        ? html`<p>You ${approval.answer} this call.</p>`
        : can('answer')
          ? html`<div class="row approval-buttons">
              <button type="button" class="primary" disabled=${approval.sending}
                onClick=${() => approval.send(true)}>Approve</button>
              <label class="visually-hidden" for=${id}>Reason to reject</label>
              <input id=${id} placeholder="reason (to reject)" value=${approval.reason}
                onInput=${(e) => approval.setReason(e.currentTarget.value)} />
              <button type="button" disabled=${approval.sending}
                onClick=${() => approval.send(false)}>Reject</button>
            </div>`
          : html`<p class="muted">${readOnly}</p>`
    }
    ${approval.refused ? html`<p class="error" role="alert">Refused: ${approval.refused}</p>` : null}
  `;
}
