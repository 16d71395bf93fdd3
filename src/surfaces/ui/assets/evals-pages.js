/**
 * The datasets (`/ui/evals`: `GET /evals/datasets`) and one dataset's page
 * (`/ui/evals/datasets/<name>`): its experiments with "Run experiment" and "Compare"
 * (evals-experiments.js), then its items, each with its input, its reference and the run it
 * was made from; "Delete dataset" after a confirmation. Datasets are made from runs on the
 * runs page (dataset-picker.js).
 */
import { api, can } from './api.js';
import { shown } from './evals-compare.js';
import { ExperimentsSection } from './evals-experiments.js';
import { datasetHref } from './evals-routes.js';
import { shortId, when } from './format.js';
import { navigate } from './nav.js';
import { html, useEffect, useRef, useState } from './vendor/preact-htm.mjs';

export function DatasetsPage() {
  const [datasets, setDatasets] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    api('/evals/datasets')
      .then((answer) => live && setDatasets(answer.datasets))
      .catch((e) => live && e.status !== 401 && setError(e.message)); // a 401: the key prompt
    return () => {
      live = false;
    };
  }, []);
  return html`
    <section class="page evals">
      <h1>Datasets</h1>
      <p class="muted">Inputs with their reference outputs, to run an agent or a workflow over
        and score. Make one from recorded runs: tick them on the${' '}
        <a href="/ui">runs page</a> and choose “Add to dataset”.</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${
        datasets === null
          ? error
            ? null
            : html`<p class="muted">Loading…</p>`
          : datasets.length === 0
            ? html`<p class="muted table-placeholder">No datasets yet.</p>`
            : html`<div class="table-wrap"><table class="run-table eval-table datasets">
          <thead><tr><th>Dataset</th><th>Description</th><th class="num">Items</th>
            <th class="c-time">Created</th></tr></thead>
          <tbody>${datasets.map(
            (d) => html`<tr key=${d.name} data-dataset=${d.name}>
              <td><a href=${datasetHref(d.name)}>${d.name}</a></td>
              <td>${d.description || html`<span class="muted">–</span>`}</td>
              <td class="num">${d.items}</td>
              <td title=${d.created_at}>${when(d.created_at)}</td></tr>`,
          )}</tbody>
        </table></div>`
      }
    </section>
  `;
}

export function DatasetPage({ dataset }) {
  const [detail, setDetail] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    setDetail(null);
    setError(null);
    api(`/evals/datasets/${encodeURIComponent(dataset)}`)
      .then((answer) => live && setDetail(answer))
      .catch((e) => {
        if (!live || e.status === 401) return;
        setError(e.status === 404 ? `No dataset '${dataset}'.` : e.message);
      });
    return () => {
      live = false;
    };
  }, [dataset]);
  return html`
    <section class="page evals dataset">
      <p class="crumbs"><a href="/ui/evals">Datasets</a> /</p>
      <div class="page-head"><h1>${dataset}</h1>
        ${detail && can('run') ? html`<${DeleteDataset} dataset=${dataset} items=${detail.items.length} />` : null}</div>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${
        detail
          ? html`
        ${detail.description ? html`<p>${detail.description}</p>` : null}
        <p class="muted">${detail.items.length} item${detail.items.length === 1 ? '' : 's'},
          created <span title=${detail.created_at}>${when(detail.created_at)}</span>.</p>
        <${ExperimentsSection} dataset=${dataset} />
        <${Items} items=${detail.items} />`
          : error
            ? null
            : html`<p class="muted">Loading…</p>`
      }
    </section>
  `;
}

function Items({ items }) {
  return html`
    <h2 id="items">Items <span class="muted count">${items.length}</span></h2>
    ${
      items.length === 0
        ? html`<p class="muted">No items yet.</p>`
        : html`<div class="table-wrap"><table class="run-table eval-table eval-items" aria-labelledby="items">
      <thead><tr><th class="num">#</th><th>Input</th><th>Reference</th><th class="c-id">From run</th></tr></thead>
      <tbody>${items.map(
        (item, index) => html`<tr key=${item.id} data-item-id=${item.id}>
          <td class="num">${index + 1}</td>
          <td><pre class="value">${shown(item.input)}</pre></td>
          <td>${
            item.reference === null || item.reference === undefined
              ? html`<span class="muted">none</span>`
              : html`<pre class="value">${shown(item.reference)}</pre>`
          }</td>
          <td class="mono">${
            item.run_id
              ? html`<a href=${`/ui/runs/${encodeURIComponent(item.run_id)}`} title=${item.run_id}>${shortId(item.run_id)}</a>`
              : html`<span class="muted">–</span>`
          }</td></tr>`,
      )}</tbody>
    </table></div>`
    }
  `;
}

/** "Delete dataset", after a confirmation: its items go; its experiments' runs stay recorded. */
function DeleteDataset({ dataset, items }) {
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState(null);
  const dialog = useRef(null);
  useEffect(() => {
    if (asking) dialog.current?.showModal();
  }, [asking]);
  const remove = async (event) => {
    event.preventDefault();
    try {
      await api(`/evals/datasets/${encodeURIComponent(dataset)}`, { method: 'DELETE' });
      navigate('/ui/evals');
    } catch (error) {
      setProblem(error.message);
    }
  };
  const back = () => {
    setAsking(false);
    setProblem(null);
  };
  return html`
    <button type="button" class="danger" onClick=${() => setAsking(true)}>Delete dataset</button>
    ${
      asking
        ? html`<dialog ref=${dialog} class="confirm" aria-labelledby="delete-title"
        onCancel=${(event) => {
          event.preventDefault();
          back();
        }}>
        <form method="dialog" onSubmit=${remove}>
          <h2 id="delete-title">Delete the dataset ${dataset}?</h2>
          <p class="muted">Its ${items} item${items === 1 ? '' : 's'} go with it. The runs it was
            made from, and its experiments' runs, stay recorded.</p>
          ${problem ? html`<p class="error" role="alert">${problem}</p>` : null}
          <div class="buttons">
            <button type="button" onClick=${back}>Back</button>
            <button type="submit" class="danger" autofocus>Delete dataset</button>
          </div>
        </form>
      </dialog>`
        : null
    }
  `;
}
