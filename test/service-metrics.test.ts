/**
 * `GET /metrics` of `service-serve` as Prometheus reaches it: a real process on the example
 * project (SQLite in an empty directory) with an API key, scraped over a real socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExposition } from './support/prometheus.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'examples/project/.agentdeck');
const servers: ServerProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('service-serve GET /metrics', () => {
  it('serves the Prometheus text format behind the API key', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-metrics-'));
    dirs.push(dir);
    const server = startServer(PROJECT, { SERVICE_API_KEYS: 'scrape-key' }, dir);
    servers.push(server);
    const url = await server.url;
    const authorization = 'Bearer scrape-key';

    const asked = await fetch(`${url}/workflows/expense-approval?thread_id=t-1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ employee: 'Ada', amount: 420, payInSeconds: 3600 }),
    });
    expect(await asked.json()).toMatchObject({ type: 'interrupt', thread_id: 't-1' });
    expect((await fetch(`${url}/metrics`)).status).toBe(401);

    const response = await fetch(`${url}/metrics`, { headers: { authorization } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const m = parseExposition(await response.text());
    expect(
      m.value('agentdeck_runs_started_total', { origin: 'expense-approval', kind: 'workflow' }),
    ).toBe(1);
    expect(m.value('agentdeck_runs_waiting', { status: 'waiting_human' })).toBe(1);
    expect(m.value('agentdeck_live_runs')).toBe(0);
    const ops = 'agentdeck_store_operation_duration_seconds_count';
    expect(m.value(ops, { store: 'events', backend: 'sqlite' })).toBeGreaterThan(0);
    expect(m.value(ops, { store: 'checkpoints', backend: 'sqlite' })).toBeGreaterThan(0);
    expect(
      m.value('agentdeck_http_requests_total', {
        method: 'POST',
        route: '/workflows/:name',
        status: '200',
      }),
    ).toBe(1);
    expect(
      m.value('agentdeck_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }),
    ).toBe(1);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
