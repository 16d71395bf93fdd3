/**
 * "Replay with changes" (#41) on an agent run's page: another model, other instructions,
 * other model settings (JSON), sent to `POST /runs/{id}/replay`; the replay is a new run,
 * whose page opens once it stopped. A run derived from another (a replay, a fork, a re-run)
 * says so in its header, linked to its source (`run.started`'s `derived_from`). Shown only
 * for an ended agent run, to a caller with the `run` role.
 */
import { api, can } from './api.js';
import { ENDED } from './format.js';
import { navigate } from './nav.js';
import { html, useState } from './vendor/preact-htm.mjs';

const HOW = { replay: 'Replay of', fork: 'Fork of', rerun: 'Re-run of' };

/** The header's fact: which run this one tries a change on. */
export function DerivedFrom({ from }) {
  const source = `/ui/runs/${encodeURIComponent(from.run)}`;
  return html`<div data-testid="derived-from"><dt>${HOW[from.how] ?? 'Derived from'}</dt><dd class="mono"><a href=${source}>${from.run}</a>${
    from.thread ? html` <span class="muted">thread ${from.thread}</span>` : null
  }</dd></div>`;
}

export function ReplayForm({ run, started }) {
  const [open, setOpen] = useState(false);
  const [model, setModel] = useState('');
  const [instructions, setInstructions] = useState('');
  const [settings, setSettings] = useState('');
  const [state, setState] = useState({ sending: false, error: null });
  if (!can('run') || started.invocable_type !== 'agent' || !ENDED.has(run.status)) return null;
  if (!open) {
    return html`<div class="actions"><button type="button" onClick=${() => setOpen(true)}>Replay with changes</button></div>`;
  }
  const submit = async (event) => {
    event.preventDefault();
    let modelSettings;
    try {
      modelSettings = settings.trim() === '' ? undefined : JSON.parse(settings);
    } catch (error) {
      setState({ sending: false, error: `Settings are not JSON: ${error.message}` });
      return;
    }
    const variant = {
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(instructions.trim() ? { instructions } : {}),
      ...(modelSettings ? { model_settings: modelSettings } : {}),
    };
    setState({ sending: true, error: null });
    try {
      const path = `/runs/${encodeURIComponent(run.run_id)}/replay`;
      const replay = await api(path, { method: 'POST', body: { variant } });
      navigate(`/ui/runs/${encodeURIComponent(replay.run_id)}`);
    } catch (error) {
      setState({ sending: false, error: error.message });
    }
  };
  return html`
    <form class="replay-form" aria-label="Replay with changes" onSubmit=${submit}>
      <h2>Replay with changes</h2>
      <p class="muted">The same input, played again as a new run on a copy of the conversation before it; this run and its session stay as they are. Its tools run again.</p>
      <label class="field">Model <input name="model" placeholder="the agent's own" value=${model}
        onInput=${(e) => setModel(e.currentTarget.value)} /></label>
      <label class="field">Instructions <textarea name="instructions" rows="3" placeholder="the agent's own"
        onInput=${(e) => setInstructions(e.currentTarget.value)}>${instructions}</textarea></label>
      <label class="field">Model settings (JSON) <input name="settings" placeholder='{"temperature": 0}' value=${settings}
        onInput=${(e) => setSettings(e.currentTarget.value)} /></label>
      ${state.error ? html`<p class="error" role="alert">${state.error}</p>` : null}
      <div class="buttons">
        <button type="button" onClick=${() => setOpen(false)}>Back</button>
        <button type="submit" class="primary" disabled=${state.sending}>${state.sending ? 'Replaying…' : 'Replay'}</button>
      </div>
    </form>
  `;
}
