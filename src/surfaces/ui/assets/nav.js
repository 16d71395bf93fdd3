/** Go to a page of the inspector without a reload (main.js listens to `popstate`). */
export function navigate(href, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  dispatchEvent(new PopStateEvent('popstate'));
}
