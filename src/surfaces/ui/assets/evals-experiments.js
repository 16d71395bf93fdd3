/**
 * A dataset's experiments (`GET /evals/experiments?dataset=`), newest first: name, target,
 * variant, status, progress (done of items), the mean of each scorer, cost and median
 * latency; read again every 2 s while one is running, so a started experiment's progress
 * moves until it completes (every 10 s otherwise). Two ticked experiments open the comparison. "Run experiment"
 * (for a caller who may start runs) sends `POST /evals/experiments` with the variant and
 * the scorers `GET /evals/scorers` lists.
 */
import { api, can } from './api.js';
import { experimentBody, scoreText, variantText } from './evals-compare.js';
import { datasetHref } from './evals-routes.js';
import { cost, duration, when } from './format.js';
import { navigate } from './nav.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const REFRESH_MS = 2000;
/** With none running, read now and then: an experiment started elsewhere (the CLI) shows up. */
const IDLE_REFRESH_MS = 10_000;

export function ExperimentsSection({ dataset }) {
  const [experiments, setExperiments] = useState(null);
  const [error, setError] = useState(null);
  const [picked, setPicked] = useState([]); // ids ticked for the comparison, at most two
  const [reads, setReads] = useState(0); // bumped to read again at once (an experiment started)
  const running = (experiments ?? []).some((e) => e.status === 'running');

  useEffect(() => {
    let live = true;
    const load = () =>
      api(`/evals/experiments?dataset=${encodeURIComponent(dataset)}`)
        .then((answer) => {
          if (!live) return;
          setExperiments(answer.experiments);
          setError(null);
        })
        .catch((e) => live && e.status !== 401 && setError(e.message));
    load();
    const every = running ? REFRESH_MS : IDLE_REFRESH_MS;
    const timer = setInterval(() => document.hidden || load(), every);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [dataset, running, reads]);

  const toggle = (id) =>
    setPicked((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id].slice(-2)));
  const compare = () => {
    // The older one is A, the baseline; the list is newest first.
    const order = (experiments ?? []).map((e) => e.id);
    const [b, a] = [...picked].sort((x, y) => order.indexOf(x) - order.indexOf(y));
    navigate(
      `${datasetHref(dataset)}/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`,
    );
  };
  const list = experiments ?? [];
  const scorers = [...new Set(list.flatMap((e) => e.scorers ?? []))];
  return html`
    <h2 id="experiments">Experiments <span class="muted count">${list.length}</span></h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${
      experiments === null
        ? null
        : list.length === 0
          ? html`<p class="muted">No experiments on this dataset yet.</p>`
          : html`
      <div class="table-wrap"><table class="run-table eval-table experiments" aria-labelledby="experiments">
        <thead><tr><th><span class="visually-hidden">Compare</span></th><th>Experiment</th>
          <th>Target</th><th>Variant</th><th class="c-status">Status</th><th class="num">Done</th>
          ${scorers.map((s) => html`<th class="num" key=${s}>${s}</th>`)}
          <th class="num">Cost</th><th class="num">p50 latency</th><th class="c-time opt">Started</th></tr></thead>
        <tbody>${list.map(
          (e) => html`<tr key=${e.id} data-experiment-id=${e.id} data-status=${e.status}>
            <td><input type="checkbox" checked=${picked.includes(e.id)}
              aria-label=${`Compare ${e.name}`} onChange=${() => toggle(e.id)} /></td>
            <td>${e.name}</td>
            <td>${e.target?.name} <span class="muted">${e.target?.type}</span></td>
            <td class="variant">${variantText(e.variant)}</td>
            <td><span class=${`status s-${e.status}`}>${e.status}</span></td>
            <td class="num"><${Progress} experiment=${e} /></td>
            ${scorers.map((s) => html`<td class="num" key=${s}>${meanOf(e, s)}</td>`)}
            <td class="num">${cost({ usd: e.usd })}</td>
            <td class="num">${e.latency_ms_p50 === null ? '–' : duration(e.latency_ms_p50)}</td>
            <td class="opt" title=${e.created_at}>${when(e.created_at)}</td></tr>`,
        )}</tbody>
      </table></div>
      <div class="compare-bar">
        <button type="button" class="primary" disabled=${picked.length !== 2} onClick=${compare}>
          Compare</button>
        <span class="muted">${picked.length === 2 ? 'the older one is A' : 'Tick two experiments to compare them item by item.'}</span>
      </div>`
    }
    ${can('run') ? html`<${RunExperiment} dataset=${dataset} onStarted=${() => setReads((n) => n + 1)} />` : null}
  `;
}

function meanOf(experiment, scorer) {
  const score = experiment.scores?.[scorer];
  if (!score) return '–';
  return html`<span title=${`${score.passed} passed, ${score.failed} failed`}>${scoreText(score.mean)}</span>`;
}

function Progress({ experiment: e }) {
  const label = `${e.done} of ${e.items}`;
  return html`<span class="progress-cell">
    ${e.status === 'running' ? html`<progress max=${e.items} value=${e.done} aria-label=${`${e.name}: ${label} items done`}></progress>` : null}
    <span>${e.done}/${e.items}</span></span>`;
}

/** The "Run experiment" form: target, variant, scorers; reports the start or the refusal. */
function RunExperiment({ dataset, onStarted }) {
  const [targets, setTargets] = useState({ agent: [], workflow: [] });
  const [scorers, setScorers] = useState(null);
  const [form, setForm] = useState({
    targetType: 'agent',
    target: '',
    name: '',
    model: '',
    instructions: '',
    settings: '',
    scorers: [],
    concurrency: '',
  });
  const [problem, setProblem] = useState(null); // { field, message }
  const [started, setStarted] = useState(null);
  const [sending, setSending] = useState(false);

  useEffect(() => {
    api('/health')
      .then((health) => {
        const all = { agent: health.agents ?? [], workflow: health.workflows ?? [] };
        setTargets(all);
        setForm((f) => (f.target ? f : { ...f, target: all.agent[0] ?? '' }));
      })
      .catch(() => {});
    api('/evals/scorers')
      .then((answer) => setScorers(answer.scorers))
      .catch((e) => setProblem({ field: 'scorers', message: e.message }));
  }, []);

  const set = (field) => (event) => {
    const value = event.currentTarget.value;
    setForm((f) => ({ ...f, [field]: value }));
    if (problem?.field === field) setProblem(null);
  };
  const setType = (type) =>
    setForm((f) => ({ ...f, targetType: type, target: targets[type][0] ?? '' }));
  const tick = (name) =>
    setForm((f) => ({
      ...f,
      scorers: f.scorers.includes(name)
        ? f.scorers.filter((s) => s !== name)
        : [...f.scorers, name],
    }));

  const submit = async (event) => {
    event.preventDefault();
    const made = experimentBody({ ...form, dataset });
    if (made.error) return setProblem(made.error);
    setSending(true);
    setProblem(null);
    try {
      const answer = await api('/evals/experiments', { method: 'POST', body: made.body });
      setStarted(answer);
      onStarted();
    } catch (error) {
      setProblem({ field: 'form', message: error.message });
    } finally {
      setSending(false);
    }
  };
  const error = (field) =>
    problem?.field === field
      ? html`<span class="error" role="alert" id=${`run-${field}-error`}>${problem.message}</span>`
      : null;
  const described = (field) => (problem?.field === field ? `run-${field}-error` : undefined);

  return html`
    <details class="run-experiment">
      <summary>Run experiment</summary>
      <form aria-label="Run experiment" onSubmit=${submit}>
        <fieldset class="target-type"><legend>Run</legend>
          ${['agent', 'workflow'].map(
            (type) => html`<label key=${type}><input type="radio" name="target-type" value=${type}
              checked=${form.targetType === type} onChange=${() => setType(type)} /> ${type === 'agent' ? 'an agent' : 'a workflow'}</label>`,
          )}
        </fieldset>
        <label class="field">${form.targetType === 'agent' ? 'Agent' : 'Workflow'}
          <select name="target" value=${form.target} onChange=${set('target')}
            aria-invalid=${problem?.field === 'target'} aria-describedby=${described('target')}>
            ${targets[form.targetType].map((name) => html`<option key=${name} value=${name}>${name}</option>`)}
          </select>${error('target')}</label>
        <label class="field">Name (optional)
          <input name="name" value=${form.name} onInput=${set('name')} placeholder="named after the variant" /></label>
        <label class="field">Model
          <input name="model" value=${form.model} onInput=${set('model')} placeholder="as declared" /></label>
        <label class="field">Instructions
          <textarea name="instructions" rows="3" value=${form.instructions} onInput=${set('instructions')}
            placeholder="as declared"></textarea></label>
        <label class="field">Model settings (JSON)
          <textarea name="settings" rows="2" class="mono" value=${form.settings} onInput=${set('settings')}
            placeholder='{"temperature": 0}' aria-invalid=${problem?.field === 'settings'}
            aria-describedby=${described('settings')}></textarea>${error('settings')}</label>
        <label class="field">Concurrency (optional)
          <input name="concurrency" type="number" min="1" step="1" value=${form.concurrency}
            onInput=${set('concurrency')} placeholder="the service's default"
            aria-invalid=${problem?.field === 'concurrency'} aria-describedby=${described('concurrency')} />
          ${error('concurrency')}</label>
        <fieldset class="scorers"><legend>Scorers</legend>
          ${
            scorers === null
              ? html`<span class="muted">Loading…</span>`
              : scorers.length === 0
                ? html`<span class="muted">The project declares no scorers.</span>`
                : scorers.map(
                    (
                      s,
                    ) => html`<label key=${s.name}><input type="checkbox" name="scorer" value=${s.name}
                checked=${form.scorers.includes(s.name)} onChange=${() => tick(s.name)} />
                <span class="mono">${s.name}</span> <span class="badge">${s.kind}</span>
                ${s.description ? html`<span class="muted">${s.description}</span>` : null}</label>`,
                  )
          }${error('scorers')}
        </fieldset>
        <div class="buttons">
          <button type="submit" class="primary" disabled=${sending}>Start experiment</button>
        </div>
        ${error('form')}
        ${started ? html`<p class="started" role="status">Started <b>${started.name}</b>: its progress is in the list above.</p>` : null}
      </form>
    </details>
  `;
}
