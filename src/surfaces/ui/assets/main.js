/**
 * The inspector's shell: the top bar, the page the path names (`/ui` or `/ui/runs`: runs;
 * `/ui/runs/<id>`: a run; `/ui/inbox`: what waits), links that change the page without a
 * reload (history API), and the prompt for a key or token when the server asks for one; the
 * controls each page shows are those the caller's roles allow (api.js `can`).
 */
import { canAct, keyNeeded, loadCaller, MODE, onKeyNeeded } from './api.js';
import { KeyPrompt } from './key-prompt.js';
import { navigate } from './nav.js';
import { RunsPage, readEarly } from './runs-page.js';
import {
  STUDIO_TABS,
  STUDIO_TITLES,
  StudioLinks,
  studioPages,
  studioRoute,
} from './studio-routes.js';
import { html, render, useEffect, useState } from './vendor/preact-htm.mjs';

function route(path) {
  const run = /^\/ui\/runs\/([^/]+)\/?$/.exec(path);
  if (run) return { page: 'run', runId: decodeURIComponent(run[1]) };
  if (/^\/ui\/inbox\/?$/.test(path)) return { page: 'inbox' };
  const studio = studioRoute(path);
  if (studio) return studio;
  if (/^\/ui(\/|\/runs\/?)?$/.test(path)) return { page: 'runs' };
  return { page: 'missing' };
}

// A plain left click on a link inside the inspector changes the page in place.
document.addEventListener('click', (event) => {
  const link = event.target.closest?.('a[href^="/ui"]');
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || link.target) return;
  event.preventDefault();
  navigate(link.getAttribute('href'));
});

/** The pages not on the first screen load when first opened, keeping the first load small. */
const lazy = {
  run: () => import('./run-page.js').then((m) => m.RunPage),
  inbox: () => import('./inbox-page.js').then((m) => m.InboxPage),
  ...studioPages,
};

function App() {
  const [location, setLocation] = useState(() => ({
    path: window.location.pathname,
    search: window.location.search,
  }));
  const [needKey, setNeedKey] = useState(keyNeeded());
  const [pages, setPages] = useState({ runs: RunsPage });
  useEffect(() => {
    const moved = () =>
      setLocation({ path: window.location.pathname, search: window.location.search });
    addEventListener('popstate', moved);
    const unwatch = onKeyNeeded(() => setNeedKey(true));
    // A 401 may have come between the first render and now (the first reads start before it).
    if (keyNeeded()) setNeedKey(true);
    return () => {
      removeEventListener('popstate', moved);
      unwatch();
    };
  }, []);
  const where = route(location.path);
  const Page = pages[where.page];
  useEffect(() => {
    if (!Page && lazy[where.page]) {
      lazy[where.page]().then((loaded) => setPages((all) => ({ ...all, [where.page]: loaded })));
    }
  }, [Page, where.page]);
  useEffect(() => {
    document.title =
      { runs: 'Runs', run: 'Run', inbox: 'Inbox', ...STUDIO_TITLES }[where.page] ?? 'agentdeck';
    document.title += ' · agentdeck';
  }, [where.page]);
  const tab = where.page === 'run' ? 'runs' : (STUDIO_TABS[where.page] ?? where.page);
  return html`
    <header class="top">
      <a class="brand" href="/ui">agentdeck</a>
      <nav aria-label="Pages">
        <a href="/ui" aria-current=${tab === 'runs' ? 'page' : undefined}>Runs</a>
        <a href="/ui/inbox" aria-current=${tab === 'inbox' ? 'page' : undefined}>Inbox</a>
        <${StudioLinks} tab=${tab} />
      </nav>
      ${
        canAct()
          ? null
          : html`<span class="mode" title=${MODE === 'on' ? 'your key or token grants reading only' : 'SERVICE_UI=read-only'}>read-only</span>`
      }
    </header>
    <main id="main">
      ${
        where.page === 'missing'
          ? html`<h1>Not a page</h1><p>Nothing at ${location.path}. <a href="/ui">See the runs</a>.</p>`
          : Page
            ? html`<${Page} ...${where} search=${location.search} />`
            : html`<p class="muted">Loading…</p>`
      }
    </main>
    ${needKey ? html`<${KeyPrompt} />` : null}
  `;
}

if (route(window.location.pathname).page === 'runs') readEarly(window.location.search);
// A run's page (a long run: thousands of events) loads its modules while /whoami is read.
else if (route(window.location.pathname).page === 'run') lazy.run();
// The caller's roles decide which controls the pages show: learned before the first draw.
await loadCaller();
const root = document.getElementById('app');
root.textContent = ''; // the "Loading" line the shell shows until this module runs
render(html`<${App} />`, root);
