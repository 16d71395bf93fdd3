/**
 * The runs an agent run started by calling a workflow as a tool. Such a child is a run of its
 * own whose `run.started` names its parent (`parent_run_id`); the API lists runs by origin,
 * not by parent, so the page looks among the runs of each workflow the turn called (the tool
 * is the workflow's name in snake_case, as `catalog-tools.ts` names it) that started while
 * the parent played, and keeps those whose first event names this run.
 */
import { api, authHeaders, query } from './api.js';

/** As core/names.ts `snakeCase`: the tool name of a workflow. */
export function snakeCase(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** The child runs of `run`, given the names of the tools its turn called. */
export async function childRuns(run, toolNames, signal) {
  if (toolNames.length === 0) return [];
  const health = await api('/health', { signal });
  const called = new Set(toolNames);
  const workflows = health.workflows.filter((name) => called.has(snakeCase(name)));
  const children = [];
  for (const workflow of workflows) {
    // Started no earlier than the parent, and before its last event (a cursor on start time).
    const before = new Date(Date.parse(run.updated_at) + 1).toISOString();
    const page = await api(`/runs${query({ origin: workflow, before, limit: 50 })}`, { signal });
    for (const candidate of page.runs.filter((r) => r.started_at >= run.started_at)) {
      if ((await parentOf(candidate.run_id, signal)) === run.run_id) children.push(candidate);
    }
  }
  return children;
}

/** The `parent_run_id` of a run's `run.started`: its first event only, then the read stops. */
async function parentOf(runId, signal) {
  const response = await fetch(`/runs/${encodeURIComponent(runId)}/events?follow=false`, {
    headers: authHeaders({ accept: 'text/event-stream' }),
    signal,
  });
  if (!response.ok || !response.body) return null;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const data = /^data: (.*)$/m.exec(text)?.[1];
  return data ? (JSON.parse(data).payload?.parent_run_id ?? null) : null;
}
