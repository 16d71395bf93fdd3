/**
 * The playground's workflow runner: pick a workflow, edit its initial state as JSON (checked
 * against its `state_schema` as it is typed: nothing is sent while it does not pass), start
 * it on a thread (`POST /workflows/{name}?thread_id=`), then follow its run: the graph with
 * the nodes done and the one waiting, each node's update, and each question it asks,
 * answered in place (`POST /runs/{id}/answer`). A timer it sleeps on is shown, not asked.
 */

import { QuestionAnswer } from './answer-form.js';
import { ApiError, authHeaders, can, query, unauthorized } from './api.js';
import { followEvents } from './event-stream.js';
import { pretty, shortId } from './format.js';
import { runProgress, WorkflowGraph } from './graph-view.js';
import { sampleOf, schemaErrors } from './json-schema-check.js';
import { SleepingUntil, wakeAtOf } from './timer.js';
import { html, useEffect, useState } from './vendor/preact-htm.mjs';

const newThread = () => `playground-${Math.random().toString(36).slice(2, 8)}`;

/** Why `text` cannot start `workflow`: not JSON, or each place it breaks the state schema. */
export function stateProblems(workflow, text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return [{ path: '', message: `not JSON: ${e.message}` }];
  }
  return schemaErrors(workflow.state_schema, value);
}

export function PlaygroundWorkflow({ workflows, initialWorkflow }) {
  // `?workflow=` names one of the catalog's, or the first is chosen.
  const [name, setName] = useState(() =>
    workflows.some((w) => w.name === initialWorkflow)
      ? initialWorkflow
      : (workflows[0]?.name ?? ''),
  );
  const workflow = workflows.find((w) => w.name === name);
  const [thread, setThread] = useState(newThread);
  const sampleFor = (chosen) => {
    const found = workflows.find((w) => w.name === chosen);
    return found ? pretty(sampleOf(found.state_schema)) : '';
  };
  const [text, setText] = useState(() => sampleFor(name));
  const [started, setStarted] = useState(null); // { runId, workflow, thread, first }
  const [refused, setRefused] = useState(null);
  const [sending, setSending] = useState(false);

  if (!workflow) return html`<p class="muted">This service has no workflows.</p>`;
  const problems = stateProblems(workflow, text);
  const start = async (event) => {
    event.preventDefault();
    if (problems.length > 0 || sending || !thread) return; // nothing leaves a state that fails
    setSending(true);
    setRefused(null);
    try {
      const response = await fetch(
        `/workflows/${encodeURIComponent(name)}${query({ thread_id: thread })}`,
        {
          method: 'POST',
          headers: authHeaders({ accept: 'application/json', 'content-type': 'application/json' }),
          body: text,
          cache: 'no-store',
        },
      );
      if (response.status === 401) unauthorized();
      const body = await response.json().catch(() => null);
      const runId = response.headers.get('x-run-id');
      // A run that started and then failed (a 500 naming its run) is followed like any other:
      // its events say where and why it failed.
      if (!response.ok && !runId) {
        throw new ApiError(response.status, body?.detail ?? response.statusText);
      }
      setStarted({ runId, workflow: name, thread, first: response.ok ? body : null });
      setThread(newThread()); // the next start is a thread of its own unless one is typed
    } catch (e) {
      setRefused(`${e.status ?? ''} ${e.message}`.trim());
    } finally {
      setSending(false);
    }
  };
  return html`
    <form class="playground-form" aria-label="Start a workflow" onSubmit=${start}>
      <div class="row">
        <label>Workflow
          <select name="workflow" value=${name} onChange=${(e) => {
            // Another workflow: its own sample replaces the editor's text.
            setName(e.currentTarget.value);
            setText(sampleFor(e.currentTarget.value));
          }}>
            ${workflows.map((w) => html`<option value=${w.name}>${w.name}</option>`)}
          </select>
        </label>
        <label>Thread
          <input name="thread" class="mono" value=${thread} required onInput=${(e) => setThread(e.currentTarget.value.trim())} />
        </label>
        <span class="muted">${workflow.durable ? 'durable' : 'not durable'}</span>
      </div>
      <label for="initial-state">Initial state (JSON)</label>
      <textarea id="initial-state" class="mono" rows=${Math.min(14, text.split('\n').length + 1)} spellcheck="false"
        aria-invalid=${problems.length > 0 ? 'true' : 'false'} aria-describedby="state-problems"
        value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
      <div id="state-problems">
        ${
          problems.length > 0
            ? html`<ul class="schema-errors error" role="alert" aria-label="Schema errors">
                ${problems.map((p) => html`<li><code>${p.path || '(the state)'}</code> ${p.message}</li>`)}
              </ul>`
            : html`<p class="muted">Matches the state schema.</p>`
        }
      </div>
      ${refused ? html`<p class="error" role="alert">Refused: ${refused}</p>` : null}
      ${
        can('run')
          ? html`<div class="buttons"><button type="submit" class="primary" disabled=${problems.length > 0 || sending}>
              ${sending ? 'Starting…' : 'Start'}</button></div>`
          : html`<p class="muted">Read-only: this page starts no runs.</p>`
      }
    </form>
    ${started ? html`<${FollowedRun} key=${started.runId} started=${started} />` : null}
  `;
}

/** The run the form started: its graph, node updates and questions, live. */
function FollowedRun({ started }) {
  const [events, setEvents] = useState([]);
  // What the run waits for now: the first answer's interrupt, then each answer's `pending`.
  const [waiting, setWaiting] = useState(() =>
    started.first?.type === 'interrupt' ? { payload: started.first.payload } : null,
  );
  const [answers, setAnswers] = useState([]);
  useEffect(() => {
    if (!started.runId) return;
    return followEvents(
      started.runId,
      (event) => setEvents((all) => [...all, event]),
      () => {},
    );
  }, [started.runId]);

  const progress = runProgress(events);
  const completed = events.find((e) => e.kind === 'run.completed');
  const finalState = completed
    ? completed.payload.output?.[0]?.data
    : started.first?.type === 'interrupt'
      ? null
      : started.first;
  const failed = events.find((e) => e.kind === 'run.failed');
  const sleeping = wakeAtOf(waiting?.payload);
  const asking = waiting && !sleeping;
  return html`
    <section class="card followed-run" data-run-id=${started.runId ?? ''} data-stands=${progress.stands}>
      <div class="card-head">
        <strong>${started.workflow}</strong>
        <span class=${`status s-${standsClass(progress.stands)}`} data-testid="workflow-status">${progress.stands}</span>
        ${started.runId ? html`<a class="mono" href=${`/ui/runs/${encodeURIComponent(started.runId)}`} title=${started.runId}>run ${shortId(started.runId)}</a>` : null}
        <a href=${`/ui/threads/${encodeURIComponent(started.workflow)}/${encodeURIComponent(started.thread)}`}>thread <span class="mono">${started.thread}</span></a>
      </div>
      <${WorkflowGraph} workflow=${started.workflow} events=${events} threadLink=${false} />
      <ol class="node-updates" aria-label="Node updates">
        ${events
          .filter((e) => e.kind === 'node.updated')
          .map(
            (e) =>
              html`<li key=${e.seq}><code>${e.payload.node}</code> <span class="mono muted">${JSON.stringify(e.payload.delta)}</span></li>`,
          )}
      </ol>
      ${answers.map((a, i) => html`<p key=${i} class="answered-line">Answered <code>${JSON.stringify(a.value)}</code>: the run is now <span class=${`status s-${a.status}`}>${a.timer ? 'sleeping' : a.status}</span></p>`)}
      ${
        asking && progress.stands !== 'completed' && progress.stands !== 'failed'
          ? html`<${AnswerForm} key=${`${answers.length} ${JSON.stringify(waiting.payload)}`} runId=${started.runId}
              payload=${waiting.payload} schema=${waiting.schema !== undefined ? waiting.schema : askedSchema(events)}
              onAnswered=${(value, outcome) => {
                const timer = wakeAtOf(outcome.pending?.payload) !== null;
                setAnswers((all) => [...all, { value, status: outcome.status, timer }]);
                setWaiting(
                  outcome.pending
                    ? {
                        payload: outcome.pending.payload,
                        schema: outcome.pending.answer_schema ?? null,
                      }
                    : null,
                );
              }} />`
          : null
      }
      ${sleeping && progress.stands !== 'completed' ? html`<p class="muted"><${SleepingUntil} wakeAt=${sleeping} />: the run goes on by itself.</p>` : null}
      ${failed ? html`<p class="error" role="alert">Failed: ${failed.payload.error_type ?? ''} ${failed.payload.message ?? ''}</p>` : null}
      ${finalState ? html`<h4>Final state</h4><pre class="json final-state">${pretty(finalState)}</pre>` : null}
    </section>
  `;
}

/** The answer schema of the run's latest question, from its `run.interrupted` (the start's body has none). */
function askedSchema(events) {
  const asked = events.findLast((e) => e.kind === 'run.interrupted');
  return asked?.payload.answer_schema ?? null;
}

function standsClass(stands) {
  return { interrupted: 'waiting_human' }[stands] ?? stands;
}

function AnswerForm({ runId, payload, schema, onAnswered }) {
  return html`
    <div class="answer inline-answer">
      <h4>It asks</h4>
      <pre class="json">${pretty(payload)}</pre>
      ${
        can('answer')
          ? html`<${QuestionAnswer} runId=${runId} schema=${schema} idPrefix="workflow-answer"
              label="Answer the question"
              onAnswered=${(outcome, value) => onAnswered(value, outcome)} />`
          : html`<p class="muted">Read-only: answer through the API.</p>`
      }
    </div>
  `;
}
