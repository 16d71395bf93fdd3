/**
 * The studio's pages in the shell (main.js): their paths, their lazily loaded modules (none
 * is on the first page: each loads when first opened), titles and top-bar links. Kept here so
 * the shell names them in a few lines.
 */
import { EVALS_TABS, EVALS_TITLES, evalsPages, evalsRoute } from './evals-routes.js';
import { html } from './vendor/preact-htm.mjs';

/** `{ page, ...params }` for a studio path, or null. */
export function studioRoute(path) {
  if (/^\/ui\/catalog\/?$/.test(path)) return { page: 'catalog' };
  if (/^\/ui\/playground\/?$/.test(path)) return { page: 'playground' };
  if (/^\/ui\/(sessions|threads)\/?$/.test(path)) return { page: 'sessions' };
  const session = /^\/ui\/sessions\/([^/]+)\/?$/.exec(path);
  if (session) return { page: 'session', sessionId: decodeURIComponent(session[1]) };
  const thread = /^\/ui\/threads\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (thread) {
    const [, workflow, threadId] = thread.map(decodeURIComponent);
    return { page: 'thread', workflow, threadId };
  }
  return evalsRoute(path);
}

export const studioPages = {
  catalog: () => import('./catalog-page.js').then((m) => m.CatalogPage),
  playground: () => import('./playground-page.js').then((m) => m.PlaygroundPage),
  sessions: () => import('./sessions-index.js').then((m) => m.SessionsIndex),
  session: () => import('./sessions-page.js').then((m) => m.SessionPage),
  thread: () => import('./sessions-page.js').then((m) => m.ThreadPage),
  ...evalsPages,
};

export const STUDIO_TITLES = {
  catalog: 'Catalog',
  playground: 'Playground',
  sessions: 'Sessions',
  session: 'Session',
  thread: 'Thread',
  ...EVALS_TITLES,
};

/** The tab a page is under: a session's and a thread's are the index's. */
export const STUDIO_TABS = { session: 'sessions', thread: 'sessions', ...EVALS_TABS };

export function StudioLinks({ tab }) {
  return html`
    <a href="/ui/catalog" aria-current=${tab === 'catalog' ? 'page' : undefined}>Catalog</a>
    <a href="/ui/playground" aria-current=${tab === 'playground' ? 'page' : undefined}>Playground</a>
    <a href="/ui/sessions" aria-current=${tab === 'sessions' ? 'page' : undefined}>Sessions</a>
    <a href="/ui/evals" aria-current=${tab === 'evals' ? 'page' : undefined}>Evals</a>
  `;
}
