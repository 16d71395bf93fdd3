/**
 * `/openapi.json` as tools read it: `redocly lint` with the repository's `redocly.yaml` (the
 * recommended rules) finds no error and no warning, with and without API keys, and
 * `openapi-typescript` turns it into named types. Offline: the CLI runs from node_modules
 * with its telemetry off.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

type Json = Record<string, unknown>;
interface Operation {
  requestBody?: Json;
  responses: Record<string, { content?: Record<string, { schema?: Json }>; headers?: Json }>;
  security?: unknown[];
}
interface Document {
  security: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes?: Json };
}

const redoclyCli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const redoclyConfig = fileURLToPath(new URL('../../../redocly.yaml', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agentdeck-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function documentOf(options: { apiKeys?: string[] }): Promise<Document> {
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'Greeter', model: new ScriptedModel([]) })],
    workflows: [approval()],
  });
  const response = await deck
    .app(options)
    .request('/openapi.json', { headers: { authorization: 'Bearer key' } });
  expect(response.status).toBe(200);
  return (await response.json()) as Document;
}

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

/** `redocly lint --format=json` of `document`, run by the Node running the tests. */
function lint(document: Document, name: string): Promise<LintReport> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const args = [redoclyCli, 'lint', '--format=json', `--config=${redoclyConfig}`, file];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((resolve, reject) => {
    // It exits 1 when it finds an error; the report on stdout says which.
    execFile(process.execPath, args, { env }, (error, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout) as LintReport);
      } catch {
        reject(new Error(`redocly lint gave no report: ${error?.message ?? ''}\n${stderr}`));
      }
    });
  });
}

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ at: `${method} ${path}`, operation })),
  );

describe.each<[string, { apiKeys?: string[] }]>([
  ['without API keys', {}],
  ['with API keys', { apiKeys: ['key'] }],
])('/openapi.json %s', (name, options) => {
  it('passes redocly lint (recommended rules) with no error and no warning', async () => {
    const report = await lint(await documentOf(options), name.replaceAll(' ', '-'));
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('states its security: none, or the bearer key with a role everywhere but the health probes', async () => {
    const document = await documentOf(options);
    const health = document.paths['/health']?.get;
    if (options.apiKeys) {
      expect(document.security).toEqual([{ bearer: [] }]);
      expect(document.components.securitySchemes).toMatchObject({
        bearer: { type: 'http', scheme: 'bearer' },
      });
      expect(health?.security).toEqual([]);
      expect(document.paths['/health/ready']?.get?.security).toEqual([]);
      expect(document.paths['/runs']?.get?.responses[401]).toBeDefined();
      expect(document.paths['/runs']?.get?.security).toEqual([{ bearer: ['read'] }]);
    } else {
      expect(document.security).toEqual([]);
      expect(document.components.securitySchemes).toBeUndefined();
      expect(document.paths['/runs']?.get?.responses[401]).toBeUndefined();
    }
  });
});

describe('/openapi.json content', () => {
  it('gives every JSON answer a schema, every error the Detail schema (OpenAiError under /v1), every body a 415', async () => {
    const document = await documentOf({ apiKeys: ['key'] });
    const detail = { $ref: '#/components/schemas/Detail' };
    const openAi = { $ref: '#/components/schemas/OpenAiError' };
    const failedRunDetail = { $ref: '#/components/schemas/FailedRunDetail' };
    for (const { at, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === '204') {
          expect(response.content, `${at} ${status}`).toBeUndefined();
          continue;
        }
        const media = Object.entries(response.content ?? {});
        expect(media.length, `${at} ${status} has content`).toBeGreaterThan(0);
        for (const [type, { schema }] of media)
          expect(schema, `${at} ${status} ${type}`).toBeDefined();
        // The probes answer 503 with their own bodies: {"status": "starting"}, or Ready.
        const probe = at === 'get /health' || at === 'get /health/ready';
        if (probe && status === '503') continue;
        const json = response.content?.['application/json']?.schema;
        const errorSchema = at.includes(' /v1/') ? openAi : detail;
        // A run that failed answers 500 with `Detail` and the run's id (#41).
        const failedRun = status === '500' && json?.$ref === failedRunDetail.$ref;
        if (Number(status) >= 400 && !failedRun) {
          expect(json, `${at} ${status}`).toEqual(errorSchema);
        }
        if (at.includes(' /v1/')) expect(status, `${at}: OpenAI says 400`).not.toBe('422');
        if (status === '503' || status === '507') {
          expect(Object.keys(response.headers ?? {}), `${at} ${status}`).toContain('Retry-After');
        }
      }
      if (operation.requestBody) expect(operation.responses[415], at).toBeDefined();
    }
  });

  it('lists both answers of the routes ?stream=true turns to SSE; the events route is SSE only', async () => {
    const document = await documentOf({});
    for (const [path, answer] of [
      ['/agents/{name}/chat', 'ChatAnswer'],
      ['/workflows/{name}', 'WorkflowAnswer'],
    ] as const) {
      const ok = document.paths[path]?.post?.responses[200];
      expect(Object.keys(ok?.content ?? {})).toEqual(['application/json', 'text/event-stream']);
      expect(ok?.content?.['application/json']?.schema).toEqual({
        $ref: `#/components/schemas/${answer}`,
      });
      expect(ok?.content?.['text/event-stream']?.schema?.description).toMatch(/event: paused/);
      expect(Object.keys(ok?.headers ?? {})).toEqual(['X-Run-Id']);
    }
    const events = document.paths['/runs/{run_id}/events']?.get?.responses;
    expect(Object.keys(events?.[200]?.content ?? {})).toEqual(['text/event-stream']);
    expect(events?.[204]).toBeDefined();
    for (const path of ['/workflows/{name}/{thread_id}/resume', '/runs/{run_id}/resume']) {
      const ok = document.paths[path]?.post?.responses[200];
      expect(Object.keys(ok?.content ?? {}), path).toEqual(['application/json']);
      expect(Object.keys(ok?.headers ?? {}), path).toEqual(['X-Run-Id']);
    }
    expect(
      document.paths['/workflows/{name}/{thread_id}/resume']?.post?.responses[200]?.content?.[
        'application/json'
      ]?.schema,
    ).toEqual({ $ref: '#/components/schemas/WorkflowAnswer' });
    expect(document.components.schemas.WorkflowAnswer).toMatchObject({
      anyOf: [
        { $ref: '#/components/schemas/WorkflowState' },
        { $ref: '#/components/schemas/Interrupt' },
      ],
    });
  });

  it('gives openapi-typescript named types', async () => {
    const document = await documentOf({ apiKeys: ['key'] });
    const source = astToString(
      await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]),
    );
    for (const name of [
      'ChatBody',
      'ChatAnswer',
      'Interrupt',
      'Detail',
      'Health',
      'Ready',
      'RunSummary',
      'RunList',
      'RunDetail',
      'ControlRecorded',
      'Resumed',
      'ResumeBody',
      'WorkflowState',
      'WorkflowAnswer',
    ]) {
      expect(source).toMatch(new RegExp(`^ {8}${name}: `, 'm'));
    }
    expect(source).toContain('"application/json": components["schemas"]["ChatAnswer"];');
    expect(source).toContain('"text/event-stream": string;');
    expect(source).toContain('"application/json": components["schemas"]["Interrupt"][];');
    expect(source).toContain('stream?: boolean;');
  });
});
