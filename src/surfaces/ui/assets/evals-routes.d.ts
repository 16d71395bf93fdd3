/** Types of evals-routes.js (plain JavaScript the browser runs), for its tests. */
export function evalsRoute(
  path: string,
): { page: 'evals' } | { page: 'dataset' | 'compare'; dataset: string } | null;
export function datasetHref(name: string): string;
export const EVALS_TITLES: Record<string, string>;
export const EVALS_TABS: Record<string, string>;
