/**
 * The evals pages in the shell (through studio-routes.js): the datasets (`/ui/evals`), a
 * dataset with its items and experiments (`/ui/evals/datasets/<name>`), and two of its
 * experiments compared item by item (`/ui/evals/datasets/<name>/compare?a=<id>&b=<id>`).
 * Each loads when first opened.
 */

/** `{ page, ...params }` for an evals path, or null. */
export function evalsRoute(path) {
  if (/^\/ui\/evals\/?$/.test(path)) return { page: 'evals' };
  const dataset = /^\/ui\/evals\/datasets\/([^/]+)(\/compare)?\/?$/.exec(path);
  if (!dataset) return null;
  const name = decodeURIComponent(dataset[1]);
  return dataset[2] ? { page: 'compare', dataset: name } : { page: 'dataset', dataset: name };
}

/** The address of dataset `name`'s page. */
export function datasetHref(name) {
  return `/ui/evals/datasets/${encodeURIComponent(name)}`;
}

export const evalsPages = {
  evals: () => import('./evals-pages.js').then((m) => m.DatasetsPage),
  dataset: () => import('./evals-pages.js').then((m) => m.DatasetPage),
  compare: () => import('./evals-compare-page.js').then((m) => m.ComparePage),
};

export const EVALS_TITLES = { evals: 'Evals', dataset: 'Dataset', compare: 'Compare experiments' };

/** A dataset's page and the comparison are under the Evals tab. */
export const EVALS_TABS = { dataset: 'evals', compare: 'evals' };
