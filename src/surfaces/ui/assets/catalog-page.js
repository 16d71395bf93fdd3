/**
 * The catalog (`GET /catalog`): every agent (description, instructions or a note that they
 * are computed, model, tools with their parameter schemas and whether a person approves them,
 * skills, MCP servers with their live status and tools), every workflow (description, durable
 * or not, state schema, graph), skills, MCP servers and schedules (next fire, paused; pause
 * and resume unless the page is read-only). Each name links to the runs it started (the runs
 * page's `origin`).
 */
import { api, can } from './api.js';
import { pretty, shortId, statusLabel, when } from './format.js';
import { END, START } from './graph-layout.js';
import { GraphSvg } from './graph-view.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const runsOf = (name) => `/ui?origin=${encodeURIComponent(name)}`;
const anchor = (kind, name) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export function CatalogPage() {
  const [catalog, setCatalog] = useState(null);
  const [error, setError] = useState(null);
  const load = () =>
    api('/catalog')
      .then((body) => {
        setCatalog(body);
        setError(null);
      })
      // A 401 is the key prompt's to say.
      .catch((e) => e.status === 401 || setError(e.message));
  useEffect(() => {
    load();
  }, []);

  if (error && !catalog)
    return html`<section class="page"><h1>Catalog</h1><p class="error" role="alert">${error}</p></section>`;
  if (!catalog)
    return html`<section class="page"><h1>Catalog</h1><p class="muted">Loading…</p></section>`;
  const sections = [
    ['agents', 'Agents', catalog.agents.length],
    ['workflows', 'Workflows', catalog.workflows.length],
    ['skills', 'Skills', catalog.skills.length],
    ['mcp-servers', 'MCP servers', catalog.mcp_servers.length],
    ['schedules', 'Schedules', catalog.schedules.length],
  ];
  return html`
    <section class="page catalog">
      <div class="page-head">
        <h1>Catalog</h1>
        <nav class="toc" aria-label="Sections">
          ${sections.map(([id, title, count]) => html`<a href=${`#${id}`}>${title} <span class="muted">${count}</span></a>`)}
        </nav>
      </div>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <h2 id="agents">Agents</h2>
      ${none(catalog.agents, 'No agents.')}
      <ul class="cards">
        ${catalog.agents.map((agent) => html`<li key=${agent.name}><${AgentCard} agent=${agent} catalog=${catalog} /></li>`)}
      </ul>
      <h2 id="workflows">Workflows</h2>
      ${none(catalog.workflows, 'No workflows.')}
      <ul class="cards">
        ${catalog.workflows.map((workflow) => html`<li key=${workflow.name}><${WorkflowCard} workflow=${workflow} /></li>`)}
      </ul>
      <h2 id="skills">Skills</h2>
      ${none(catalog.skills, 'No skills.')}
      <ul class="cards">
        ${catalog.skills.map((skill) => html`<li key=${skill.name}><${SkillCard} skill=${skill} /></li>`)}
      </ul>
      <h2 id="mcp-servers">MCP servers</h2>
      ${none(catalog.mcp_servers, 'No MCP servers.')}
      <ul class="cards">
        ${catalog.mcp_servers.map((server) => html`<li key=${server.name}><${McpCard} server=${server} /></li>`)}
      </ul>
      <h2 id="schedules">Schedules</h2>
      ${none(catalog.schedules, 'No schedules.')}
      ${catalog.schedules.length > 0 ? html`<${Schedules} schedules=${catalog.schedules} reload=${load} />` : null}
    </section>
  `;
}

function none(list, text) {
  return list.length === 0 ? html`<p class="muted">${text}</p>` : null;
}

function ApprovalBadge({ needs }) {
  if (needs === true) return html`<span class="badge b-approval">needs approval</span>`;
  if (needs === 'conditional')
    return html`<span class="badge b-conditional" title="A function of the call decides">approval: conditional</span>`;
  return null;
}

function StatusBadge({ status }) {
  return html`<span class=${`badge mcp-${status}`}>${status}</span>`;
}

function Schema({ summary, schema }) {
  return html`
    <details class="schema">
      <summary>${summary}</summary>
      <pre class="json">${pretty(schema)}</pre>
    </details>
  `;
}

function Tool({ tool }) {
  return html`
    <li class="tool" data-tool=${tool.name}>
      <div><code>${tool.name}</code>${tool.kind && tool.kind !== 'tool' ? html` <span class="badge">${tool.kind}</span>` : null}
        ${' '}<${ApprovalBadge} needs=${tool.needs_approval} /></div>
      ${tool.description ? html`<p class="muted">${tool.description}</p>` : null}
      <${Schema} summary="Parameters" schema=${tool.parameters} />
    </li>
  `;
}

function AgentCard({ agent, catalog }) {
  const servers = agent.mcp_servers.map(
    (name) =>
      catalog.mcp_servers.find((s) => s.name === name) ?? { name, status: 'unknown', tools: [] },
  );
  return html`
    <article class="card catalog-item" id=${anchor('agent', agent.name)} data-agent=${agent.name}>
      <div class="card-head">
        <a class="item-name" href=${runsOf(agent.name)} title="Its runs">${agent.name}</a>
        <span class="muted">model <code>${agent.model ?? 'the deck default'}</code></span>
        ${agent.needs_approval.length > 0 ? html`<span class="badge b-approval">approvals: ${agent.needs_approval.join(', ')}</span>` : null}
        <a class="side-link" href=${`/ui/playground?agent=${encodeURIComponent(agent.name)}`}>Chat in the playground</a>
      </div>
      <p class="description">${agent.description}</p>
      <h4>Instructions</h4>
      ${
        agent.instructions_computed
          ? html`<p class="muted computed">Computed from the context at each turn (a function, not text).</p>`
          : html`<blockquote class="instructions">${agent.instructions}</blockquote>`
      }
      <h4>Tools <span class="muted">${agent.tools.length}</span></h4>
      ${agent.tools.length === 0 ? html`<p class="muted">None.</p>` : html`<ul class="tools">${agent.tools.map((tool) => html`<${Tool} key=${tool.name} tool=${tool} />`)}</ul>`}
      ${
        agent.skills.length > 0
          ? html`<h4>Skills</h4><p>${agent.skills.map((name) => html`<a class="chip" href=${`#${anchor('skill', name)}`}>${name}</a> `)}</p>`
          : null
      }
      ${
        servers.length > 0
          ? html`<h4>MCP servers</h4>${servers.map(
              (server) => html`
              <div class="mcp-ref" data-mcp=${server.name}>
                <a href=${`#${anchor('mcp', server.name)}`}>${server.name}</a> <${StatusBadge} status=${server.status} />
                <span class="muted">${server.tools.map((t) => t.name).join(', ') || 'no tools'}</span>
              </div>`,
            )}`
          : null
      }
      ${agent.output_schema ? html`<${Schema} summary="Output schema" schema=${agent.output_schema} />` : null}
    </article>
  `;
}

function WorkflowCard({ workflow }) {
  const graphId = anchor('graph', workflow.name);
  return html`
    <article class="card catalog-item" id=${anchor('workflow', workflow.name)} data-workflow=${workflow.name}>
      <div class="card-head">
        <a class="item-name" href=${runsOf(workflow.name)} title="Its runs">${workflow.name}</a>
        <span class=${`badge ${workflow.durable ? 'b-durable' : ''}`}>${workflow.durable ? 'durable' : 'not durable'}</span>
        <span class="muted">${workflow.graph.nodes.filter((n) => n.id !== START && n.id !== END).length} nodes</span>
        <a class="side-link" href=${`#${graphId}`}>Its graph</a>
        <a class="side-link" href=${`/ui/playground?workflow=${encodeURIComponent(workflow.name)}`}>Start in the playground</a>
      </div>
      <p class="description">${workflow.description}</p>
      <${Schema} summary="State schema" schema=${workflow.state_schema} />
      <div class="graph-box" id=${graphId} tabindex="-1">
        <${GraphSvg} name=${workflow.name} graph=${workflow.graph} />
      </div>
    </article>
  `;
}

function SkillCard({ skill }) {
  return html`
    <article class="card catalog-item" id=${anchor('skill', skill.name)} data-skill=${skill.name}>
      <div class="card-head"><strong class="item-name">${skill.name}</strong></div>
      <p>${skill.description}</p>
      <details class="schema"><summary>Body</summary><pre class="skill-body">${skill.body}</pre></details>
    </article>
  `;
}

function McpCard({ server }) {
  return html`
    <article class="card catalog-item" id=${anchor('mcp', server.name)} data-mcp=${server.name}>
      <div class="card-head">
        <strong class="item-name">${server.name}</strong> <${StatusBadge} status=${server.status} />
        <span class="muted">${server.transport}</span>
      </div>
      ${server.error ? html`<p class="error">${server.error}</p>` : null}
      <h4>Tools <span class="muted">${server.tools.length}</span></h4>
      ${server.tools.length === 0 ? html`<p class="muted">None${server.status === 'connected' ? '' : ' while not connected'}.</p>` : null}
      <ul class="tools">${server.tools.map((tool) => html`<${Tool} key=${tool.name} tool=${tool} />`)}</ul>
    </article>
  `;
}

function Schedules({ schedules, reload }) {
  const [busy, setBusy] = useState(null);
  const [refused, setRefused] = useState(null);
  const act = async (schedule, verb) => {
    setBusy(schedule.name);
    setRefused(null);
    try {
      await api(`/schedules/${encodeURIComponent(schedule.name)}/${verb}`, {
        method: 'POST',
        body: {},
      });
      await reload();
    } catch (e) {
      setRefused(`${schedule.name}: ${e.message}`);
    } finally {
      setBusy(null);
    }
  };
  return html`
    ${refused ? html`<p class="error" role="alert">${refused}</p>` : null}
    <div class="table-wrap">
      <table class="run-table schedules">
        <thead><tr><th>Schedule</th><th>Starts</th><th>When</th><th>Next fire</th><th>State</th><th>Last run</th>${can('admin') ? html`<th><span class="visually-hidden">Actions</span></th>` : null}</tr></thead>
        <tbody>
          ${schedules.map(
            (s) => html`
            <tr key=${s.name} data-schedule=${s.name} data-paused=${String(s.paused)}>
              <td><a href=${runsOf(s.target)} title="Runs of its target">${s.name}</a></td>
              <td><a href=${runsOf(s.target)}>${s.target}</a></td>
              <td><code>${s.recurrence}</code> <span class="muted">${s.timezone}</span></td>
              <td title=${s.next_fire ?? ''}>${s.paused ? html`<span class="muted">paused</span>` : when(s.next_fire)}</td>
              <td><span class=${`status s-${s.paused ? 'paused' : 'running'}`}>${s.paused ? 'paused' : 'active'}</span></td>
              <td>${s.last_run_id ? html`<a class="mono" href=${`/ui/runs/${encodeURIComponent(s.last_run_id)}`}>${shortId(s.last_run_id)}</a> <span class="muted">${statusLabel(s.last_run_status ?? '')}</span>` : '–'}</td>
              ${
                can('admin')
                  ? html`<td><button type="button" disabled=${busy === s.name}
                      onClick=${() => act(s, s.paused ? 'resume' : 'pause')}>${s.paused ? 'Resume' : 'Pause'}</button></td>`
                  : null
              }
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  `;
}
