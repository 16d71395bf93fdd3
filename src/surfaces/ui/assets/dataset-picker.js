/**
 * "Add to dataset" on the runs page: the runs ticked in the list become dataset items (each
 * run's input, and its output as the reference). A dialog chooses a new dataset (a name and
 * an optional description: `POST /evals/datasets`) or an existing one
 * (`POST /evals/datasets/<name>/items`), both with `runs: [...]`; then the bar says how many
 * items were added, with a link to the dataset. A refusal (a name already taken, a run that
 * has no output yet) stays in the dialog, nothing lost.
 */
import { api } from './api.js';
import { datasetHref } from './evals-routes.js';
import { html, useEffect, useRef, useState } from './vendor/preact-htm.mjs';

export function AddToDataset({ runIds, onClear }) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState(null); // { name, added, items }
  const count = runIds.length;
  return html`
    <div class="selection-bar" aria-label="Selected runs">
      <span>${count === 0 ? 'Tick runs to make dataset items of them.' : `${count} run${count === 1 ? '' : 's'} selected`}</span>
      <button type="button" disabled=${count === 0} onClick=${() => setOpen(true)}>Add to dataset</button>
      ${count > 0 ? html`<button type="button" onClick=${onClear}>Clear</button>` : null}
      ${
        added
          ? html`<span role="status" class="added">
              Added ${added.added} item${added.added === 1 ? '' : 's'} to${' '}
              <a href=${datasetHref(added.name)}>${added.name}</a> (${added.items} in all).</span>`
          : null
      }
      ${
        open
          ? html`<${DatasetDialog} runIds=${runIds} onDone=${(result) => {
              setOpen(false);
              if (result) {
                setAdded(result);
                onClear();
              }
            }} />`
          : null
      }
    </div>
  `;
}

function DatasetDialog({ runIds, onDone }) {
  const dialog = useRef(null);
  const [datasets, setDatasets] = useState(null);
  const [choice, setChoice] = useState('new');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [existing, setExisting] = useState('');
  const [problem, setProblem] = useState(null);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
    api('/evals/datasets')
      .then((answer) => {
        setDatasets(answer.datasets);
        setExisting(answer.datasets[0]?.name ?? '');
      })
      .catch((e) => {
        setDatasets([]);
        if (e.status !== 401) setProblem(e.message);
      });
  }, []);

  const submit = async (event) => {
    event.preventDefault();
    const target = choice === 'new' ? name.trim() : existing;
    if (!target) {
      setProblem(choice === 'new' ? 'Type a name for the new dataset.' : 'Choose a dataset.');
      return;
    }
    setSending(true);
    setProblem(null);
    try {
      if (choice === 'new') {
        const body = { name: target, runs: runIds };
        if (description.trim()) body.description = description.trim();
        const made = await api('/evals/datasets', { method: 'POST', body });
        onDone({ name: made.name, added: made.items, items: made.items });
      } else {
        const path = `/evals/datasets/${encodeURIComponent(target)}/items`;
        const answer = await api(path, { method: 'POST', body: { runs: runIds } });
        onDone({ name: target, added: answer.added, items: answer.items });
      }
    } catch (error) {
      setProblem(error.message);
      setSending(false);
    }
  };
  const count = runIds.length;
  return html`
    <dialog ref=${dialog} class="confirm dataset-dialog" aria-labelledby="dataset-title"
      onCancel=${(event) => {
        event.preventDefault();
        onDone(null);
      }}>
      <form method="dialog" onSubmit=${submit}>
        <h2 id="dataset-title">Add ${count} run${count === 1 ? '' : 's'} to a dataset</h2>
        <p class="muted">Each run becomes an item: its input, and its output as the reference.</p>
        <fieldset><legend class="visually-hidden">Dataset</legend>
          <label><input type="radio" name="choice" value="new" checked=${choice === 'new'}
            onChange=${() => setChoice('new')} /> A new dataset</label>
          <label><input type="radio" name="choice" value="existing" checked=${choice === 'existing'}
            disabled=${!datasets || datasets.length === 0} onChange=${() => setChoice('existing')} />
            An existing dataset</label>
        </fieldset>
        ${
          choice === 'new'
            ? html`
          <label class="field">Name
            <input name="name" value=${name} required autofocus
              onInput=${(event) => setName(event.currentTarget.value)} /></label>
          <label class="field">Description (optional)
            <input name="description" value=${description}
              onInput=${(event) => setDescription(event.currentTarget.value)} /></label>`
            : html`
          <label class="field">Dataset
            <select name="dataset" value=${existing} onChange=${(event) => setExisting(event.currentTarget.value)}>
              ${(datasets ?? []).map((d) => html`<option key=${d.name} value=${d.name}>${d.name} (${d.items} items)</option>`)}
            </select></label>`
        }
        ${problem ? html`<p class="error" role="alert">${problem}</p>` : null}
        <div class="buttons">
          <button type="button" onClick=${() => onDone(null)}>Back</button>
          <button type="submit" class="primary" disabled=${sending}>Add to dataset</button>
        </div>
      </form>
    </dialog>
  `;
}
