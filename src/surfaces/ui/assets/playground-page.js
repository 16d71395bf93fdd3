/**
 * The playground (`/ui/playground`): a chat with any agent (playground-chat.js) and a
 * workflow started from a state edited as JSON (playground-workflow.js), side by side on a
 * wide screen. `?agent=` and `?workflow=` (the catalog's links) choose what is selected.
 */
import { catalogOnce } from './graph-view.js';
import { PlaygroundChat } from './playground-chat.js';
import { PlaygroundWorkflow } from './playground-workflow.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

export function PlaygroundPage({ search }) {
  const [catalog, setCatalog] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    catalogOnce()
      .then(setCatalog)
      .catch((e) => e.status === 401 || setError(e.message)); // a 401: the key prompt says it
  }, []);
  const params = new URLSearchParams(search);
  return html`
    <section class="page playground">
      <h1>Playground</h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${!catalog && !error ? html`<p class="muted">Loading…</p>` : null}
      ${
        catalog
          ? html`<div class="playground-panes">
              <section class="pane" aria-labelledby="chat-title">
                <h2 id="chat-title">Chat with an agent</h2>
                ${
                  catalog.agents.length > 0
                    ? html`<${PlaygroundChat} agents=${catalog.agents} initialAgent=${params.get('agent')} />`
                    : html`<p class="muted">This service has no agents.</p>`
                }
              </section>
              <section class="pane" aria-labelledby="workflow-title">
                <h2 id="workflow-title">Start a workflow</h2>
                <${PlaygroundWorkflow} workflows=${catalog.workflows} initialWorkflow=${params.get('workflow')} />
              </section>
            </div>`
          : null
      }
    </section>
  `;
}
