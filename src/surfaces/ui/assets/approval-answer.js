/**
 * Approve or reject a tool call held for approval, with a reason to reject: the playground's
 * inline approvals and the inbox's cards share it. The answer is `POST /runs/{run_id}/answer`
 * with `{"value": {"approved", "call_id", "reason"?}}`; naming the call makes a retry a 409,
 * never an answer to the run's next held call. A tool that declares its reason's shape
 * (`approvalReason`, the item's `answer_schema`) gets a form for the reason (answer-form.js):
 * a rejection needs a reason that fills it, and the server's refusal shows beside it.
 */

import { answerOf, fieldsOf, SchemaFields } from './answer-form.js';
import { api, can } from './api.js';
import { html, useState } from './vendor/preact-htm.mjs';

/**
 * The state of one held call's answer: `answer` (`approved`, `rejected` or null), `sending`,
 * `refused` (the API's refusal), the `reason` typed (its drafts, for a shaped reason), and
 * `send(approved)`, which calls `onAnswered(outcome, approved)` with the route's outcome.
 */
export function useApprovalAnswer(runId, callId, onAnswered, reasonSchema = null) {
  const fields = reasonSchema ? fieldsOf(reasonSchema) : null;
  const [reason, setReason] = useState('');
  const [drafts, setDrafts] = useState({});
  const [problems, setProblems] = useState([]);
  const [state, setState] = useState({ sending: false, answer: null, refused: null });
  const setDraft = (name, text) => {
    setDrafts((all) => ({ ...all, [name]: text }));
    setProblems((all) => all.filter((p) => p.field !== name));
  };
  const send = async (approved) => {
    const value = { approved, call_id: callId };
    if (fields && !approved) {
      const made = answerOf(fields, drafts);
      if (made.problems) {
        setProblems(made.problems);
        return;
      }
      value.reason = made.value;
    } else if (!fields && !approved && reason.trim()) {
      value.reason = reason.trim();
    }
    setState({ sending: true, answer: null, refused: null });
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
  return { ...state, reason, setReason, fields, drafts, setDraft, problems, send };
}

/** Approve, a reason, Reject (or what was answered; or `readOnly`, the note a read-only page shows). */
export function ApprovalButtons({ approval, callId, readOnly }) {
  const id = `reason-${callId}`;
  const approve = html`<button type="button" class="primary" disabled=${approval.sending}
    onClick=${() => approval.send(true)}>Approve</button>`;
  const reject = html`<button type="button" disabled=${approval.sending}
    onClick=${() => approval.send(false)}>Reject</button>`;
  return html`
    ${
      approval.answer
        ? html`<p>You ${approval.answer} this call.</p>`
        : !can('answer')
          ? html`<p class="muted">${readOnly}</p>`
          : approval.fields
            ? html`<div class="approval-buttons shaped-reason">
                <div class="row">${approve}</div>
                <fieldset class="answer"><legend>Reason to reject</legend>
                  <${SchemaFields} fields=${approval.fields} drafts=${approval.drafts} setDraft=${approval.setDraft}
                    idPrefix=${id} problems=${approval.problems} />
                  <div class="buttons">${reject}</div>
                </fieldset>
              </div>`
            : html`<div class="row approval-buttons">
                ${approve}
                <label class="visually-hidden" for=${id}>Reason to reject</label>
                <input id=${id} placeholder="reason (to reject)" value=${approval.reason}
                  onInput=${(e) => approval.setReason(e.currentTarget.value)} />
                ${reject}
              </div>`
    }
    ${approval.refused ? html`<p class="error" role="alert">Refused: ${approval.refused}</p>` : null}
  `;
}
