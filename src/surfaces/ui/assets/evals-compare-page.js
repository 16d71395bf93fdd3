/**
 * Two experiments of one dataset compared item by item
 * (`/ui/evals/datasets/<name>/compare?a=<id>&b=<id>`): the summary on top (each scorer's
 * mean and passes, items won, total cost, median latency, with B − A and the better side
 * marked), then one row per item: its input and reference, and each experiment's output side
 * by side with its scores (passed or failed), cost, latency and a link to its run. Read again
 * every 2 s while either experiment is still running. The pairing and deltas are
 * evals-compare.js's.
 */
import { api } from './api.js';
import {
  deltaText,
  differs,
  itemScores,
  pairResults,
  scorerNames,
  scoreText,
  shown,
  summarize,
  variantText,
} from './evals-compare.js';
import { datasetHref } from './evals-routes.js';
import { cost, duration, shortId, statusLabel } from './format.js';
import { navigate } from './nav.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const REFRESH_MS = 2000;

export function ComparePage({ dataset, search }) {
  const params = new URLSearchParams(search);
  const ids = { a: params.get('a') ?? '', b: params.get('b') ?? '' };
  const [experiments, setExperiments] = useState(null); // the dataset's, for the pickers
  const [sides, setSides] = useState({ a: null, b: null });
  const [error, setError] = useState(null);
  const running = [sides.a, sides.b].some((side) => side?.status === 'running');

  useEffect(() => {
    api(`/evals/experiments?dataset=${encodeURIComponent(dataset)}`)
      .then((answer) => setExperiments(answer.experiments))
      .catch((e) => e.status !== 401 && setError(e.message));
  }, [dataset]);

  useEffect(() => {
    let live = true;
    const load = () =>
      Promise.all(
        ['a', 'b'].map((side) =>
          ids[side] ? api(`/evals/experiments/${encodeURIComponent(ids[side])}`) : null,
        ),
      )
        .then(([a, b]) => {
          if (!live) return;
          setSides({ a, b });
          setError(null);
        })
        .catch((e) => {
          if (!live || e.status === 401) return;
          setError(e.status === 404 ? 'One of these experiments does not exist.' : e.message);
        });
    load();
    const timer = running ? setInterval(() => document.hidden || load(), REFRESH_MS) : null;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [ids.a, ids.b, running]);

  const pick = (side, id) => {
    const next = { ...ids, [side]: id };
    navigate(
      `${datasetHref(dataset)}/compare?a=${encodeURIComponent(next.a)}&b=${encodeURIComponent(next.b)}`,
      { replace: true },
    );
  };
  const ready = sides.a && sides.b && sides.a.id === ids.a && sides.b.id === ids.b;
  return html`
    <section class="page evals compare">
      <p class="crumbs"><a href="/ui/evals">Datasets</a> / <a href=${datasetHref(dataset)}>${dataset}</a> /</p>
      <h1>Compare experiments</h1>
      <form class="filters pickers" aria-label="Experiments to compare" onSubmit=${(e) => e.preventDefault()}>
        ${['a', 'b'].map(
          (side) => html`<label key=${side}>${side === 'a' ? 'A (baseline)' : 'B'}
            <select name=${side} value=${ids[side]} onChange=${(e) => pick(side, e.currentTarget.value)}>
              <option value="">choose…</option>
              ${(experiments ?? []).map((e) => html`<option key=${e.id} value=${e.id}>${e.name}</option>`)}
            </select></label>`,
        )}
      </form>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${
        !ids.a || !ids.b
          ? html`<p class="muted">Choose two experiments of this dataset.</p>`
          : ready
            ? html`<${Summary} a=${sides.a} b=${sides.b} /><${Items} a=${sides.a} b=${sides.b} />`
            : error
              ? null
              : html`<p class="muted">Loading…</p>`
      }
    </section>
  `;
}

/** A cell's marker for the side that did better or worse, read out as well as coloured. */
function mark(better, side) {
  if (!better) return { cls: '', tag: null };
  const won = better === side;
  return {
    cls: won ? 'better' : 'worse',
    tag: html` <span class=${`tag ${won ? 'better' : 'worse'}`}>${won ? 'better' : 'worse'}</span>`,
  };
}

function Summary({ a, b }) {
  const summary = summarize(a, b);
  const row = (label, versus, show, unit, extra = {}) => {
    const ma = mark(versus.better, 'a');
    const mb = mark(versus.better, 'b');
    return html`<tr data-measure=${label}>
      <th scope="row">${label}</th>
      <td class=${`num ${ma.cls}`} data-side="a">${show(versus.a, extra.a)}${ma.tag}</td>
      <td class=${`num ${mb.cls}`} data-side="b">${show(versus.b, extra.b)}${mb.tag}</td>
      <td class="num delta">${deltaText(versus.delta, unit)}</td></tr>`;
  };
  const usd = (value) => cost({ usd: value });
  const ms = (value) => (value === null ? '–' : duration(value));
  return html`
    <div class="table-wrap"><table class="run-table eval-table compare-summary" aria-labelledby="summary-title">
      <caption id="summary-title">Summary</caption>
      <thead><tr><th scope="col">Measure</th>
        <th scope="col" class="num">A: ${a.name}<br /><span class="muted variant">${a.target?.name} · ${variantText(a.variant)}</span></th>
        <th scope="col" class="num">B: ${b.name}<br /><span class="muted variant">${b.target?.name} · ${variantText(b.variant)}</span></th>
        <th scope="col" class="num">B − A</th></tr></thead>
      <tbody>
        ${summary.scorers.map((s) =>
          row(
            `${s.name} mean`,
            s.mean,
            (mean, passed) =>
              mean === null
                ? '–'
                : html`${scoreText(mean)} <span class="muted">(${passed ?? 0} passed)</span>`,
            scoreText,
            { a: s.passed.a, b: s.passed.b },
          ),
        )}
        ${summary.scorers.map(
          (
            s,
          ) => html`<tr data-measure=${`${s.name} items won`}><th scope="row">${s.name}: items won</th>
            <td class="num" data-side="a">${s.wins.a}</td><td class="num" data-side="b">${s.wins.b}</td>
            <td class="num muted">${s.wins.ties} tied</td></tr>`,
        )}
        ${row('cost', summary.usd, usd, (size) => usd(size))}
        ${row('p50 latency', summary.latency, ms, ms)}
        <tr data-measure="done"><th scope="row">items done</th>
          <td class="num" data-side="a">${summary.done.a}/${a.items} <span class=${`status s-${a.status}`}>${statusLabel(a.status)}</span></td>
          <td class="num" data-side="b">${summary.done.b}/${b.items} <span class=${`status s-${b.status}`}>${statusLabel(b.status)}</span></td>
          <td></td></tr>
      </tbody>
    </table></div>
  `;
}

function Items({ a, b }) {
  const [onlyDiffering, setOnlyDiffering] = useState(false);
  const all = pairResults(a, b);
  const names = scorerNames(a, b);
  const rows = onlyDiffering ? all.filter((row) => differs(row, names)) : all;
  return html`
    <div class="page-head"><h2 id="items">Items <span class="muted count">${onlyDiffering ? `${rows.length} of ${all.length}` : all.length}</span></h2>
      <label class="find"><input type="checkbox" checked=${onlyDiffering}
        onChange=${(e) => setOnlyDiffering(e.currentTarget.checked)} /> Only the items whose scores differ</label></div>
    <div class="table-wrap"><table class="run-table eval-table compare-items" aria-labelledby="items">
      <thead><tr><th scope="col" class="num">#</th><th scope="col">Input and reference</th>
        <th scope="col">A: ${a.name}</th><th scope="col">B: ${b.name}</th></tr></thead>
      <tbody>${rows.map((row) => {
        const scores = itemScores(row, names);
        return html`<tr key=${row.item_id} data-item-id=${row.item_id}>
          <td class="num">${all.indexOf(row) + 1}</td>
          <td><pre class="value">${shown(row.input)}</pre>
            <div class="muted small">reference</div>
            <pre class="value reference">${shown(row.reference) || '–'}</pre></td>
          <${Side} result=${row.a} side="a" scores=${scores} />
          <${Side} result=${row.b} side="b" scores=${scores} /></tr>`;
      })}</tbody>
    </table></div>
  `;
}

function Side({ result, side, scores }) {
  if (!result) return html`<td data-side=${side} class="muted">not in this experiment</td>`;
  return html`<td data-side=${side}>
    <pre class="value output">${shown(result.output) || (result.status === 'completed' ? '' : '–')}</pre>
    <ul class="scores">${scores.map((s) => {
      const score = s[side];
      if (!score)
        return html`<li key=${s.name} data-scorer=${s.name}>${s.name}: <span class="muted">no score</span></li>`;
      const m = mark(s.better, side);
      return html`<li key=${s.name} data-scorer=${s.name} class=${m.cls}>
        ${s.name}: <b>${scoreText(score.value)}</b>
        ${score.passed === null || score.passed === undefined ? null : html` <span class=${`tag ${score.passed ? 'pass' : 'fail'}`}>${score.passed ? 'pass' : 'fail'}</span>`}${m.tag}
        ${score.comment ? html`<div class="muted small">${score.comment}</div>` : null}</li>`;
    })}</ul>
    <div class="muted small">
      <span class=${`status s-${result.status}`}>${statusLabel(result.status)}</span>
      · ${cost({ usd: result.usd })} · ${result.latency_ms === null ? '–' : duration(result.latency_ms)}
      ${result.run_id ? html` · <a href=${`/ui/runs/${encodeURIComponent(result.run_id)}`} title=${result.run_id}>run ${shortId(result.run_id)}</a>` : null}
    </div></td>`;
}
