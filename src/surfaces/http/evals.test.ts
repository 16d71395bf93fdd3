/**
 * The `/evals` routes through the app (#41): datasets made from items and from recorded runs,
 * an experiment started with 202 and read back once every item has played and been scored,
 * the scorers; and each refusal: 404 for an unknown dataset, run or experiment, 409 for a
 * taken name, 422 naming the field.
 */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { Agent, Scorer } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

const exact = new Scorer({
  name: 'exact',
  description: 'The output is the reference.',
  threshold: 1,
  score: ({ output, reference }) => (output === reference ? 1 : 0),
});
const broken = new Scorer({
  name: 'broken',
  score: () => {
    throw new Error('no verdict');
  },
});

async function opened() {
  const model = new ScriptedModel([
    { text: 'Paris' },
    { text: 'Paris' },
    { text: 'Rome' },
    { text: 'Lyon' },
  ]);
  const agent = new Agent({ name: 'Geo', instructions: 'Capitals.', model });
  const { deck } = await openTestDeck({ agents: [agent], scorers: [exact, broken] });
  const app = deck.app();
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  return { deck, call };
}

describe('the /evals routes', () => {
  it('make datasets, run an experiment over one and read its results', async () => {
    const { deck, call } = await opened();
    const recorded = await deck.run('Geo', 'Capital of France?');

    expect(await call('GET', '/evals/scorers')).toEqual({
      status: 200,
      body: {
        scorers: [
          {
            name: 'broken',
            description: "Scores runs as 'broken'.",
            kind: 'code',
            threshold: null,
          },
          {
            name: 'exact',
            description: 'The output is the reference.',
            kind: 'code',
            threshold: 1,
          },
        ],
      },
    });
    const created = await call('POST', '/evals/datasets', {
      name: 'capitals',
      description: 'Capitals of Europe',
      runs: [recorded.runId],
      items: [
        { input: 'Capital of Italy?', reference: 'Rome' },
        { input: 'Capital of Spain?', reference: 'Madrid' },
      ],
    });
    expect(created).toMatchObject({ status: 201, body: { name: 'capitals', items: 3 } });
    expect(created.body.created_at).toMatch(/^\d{4}-/);
    await call('POST', '/evals/datasets', { name: 'empty' });
    expect(
      (await call('GET', '/evals/datasets')).body.datasets.map((d: { name: string }) => d.name),
    ).toEqual(['capitals', 'empty']);
    const dataset = await call('GET', '/evals/datasets/capitals');
    expect(dataset.body.items.map((i: object) => ({ ...i, id: undefined }))).toEqual([
      { id: undefined, input: 'Capital of France?', reference: 'Paris', run_id: recorded.runId },
      { id: undefined, input: 'Capital of Italy?', reference: 'Rome', run_id: null },
      { id: undefined, input: 'Capital of Spain?', reference: 'Madrid', run_id: null },
    ]);

    const started = await call('POST', '/evals/experiments', {
      dataset: 'capitals',
      agent: 'Geo',
      variant: { instructions: 'Just the city.', model_settings: { temperature: 0 } },
      scorers: ['exact', 'broken'],
      concurrency: 1,
    });
    expect(started).toMatchObject({ status: 202, body: { name: 'Geo', status: 'running' } });
    const path = `/evals/experiments/${started.body.id}`;
    let view = await call('GET', path);
    for (let i = 0; i < 100 && view.body.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      view = await call('GET', path);
    }
    expect(view.body).toMatchObject({
      dataset: 'capitals',
      target: { type: 'agent', name: 'Geo' },
      variant: { instructions: 'Just the city.', model_settings: { temperature: 0 } },
      scorers: ['exact', 'broken'],
      status: 'completed',
      items: 3,
      done: 3,
      scores: {
        exact: { mean: 2 / 3, passed: 2, failed: 1 },
        broken: { mean: null, passed: 0, failed: 0 },
      },
    });
    expect(view.body.results.map((r: { output: string }) => r.output)).toEqual([
      'Paris',
      'Rome',
      'Lyon',
    ]);
    expect(view.body.results[2]).toMatchObject({
      input: 'Capital of Spain?',
      reference: 'Madrid',
      status: 'completed',
      scores: {
        exact: { value: 0, passed: false, comment: null },
        broken: { value: null, passed: null, comment: "scorer 'broken' failed: no verdict" },
      },
    });
    expect(view.body.results[0].latency_ms).toBeGreaterThanOrEqual(0);
    const listed = await call('GET', '/evals/experiments?dataset=capitals');
    expect(listed.body.experiments.map((e: { id: string }) => e.id)).toEqual([started.body.id]);
    expect(listed.body.experiments[0]).not.toHaveProperty('results');
    expect((await call('GET', '/evals/experiments?dataset=empty')).body).toEqual({
      experiments: [],
    });

    expect(await call('POST', '/evals/datasets/empty/items', { items: [{ input: 'x' }] })).toEqual({
      status: 200,
      body: { added: 1, items: 1 },
    });
    expect((await call('DELETE', '/evals/datasets/empty')).status).toBe(204);
    expect((await call('GET', '/evals/datasets/empty')).status).toBe(404);
  });

  it('refuse what is unknown, taken or malformed, naming it', async () => {
    const { call } = await opened();
    await call('POST', '/evals/datasets', { name: 'qa', items: [{ input: 'hi' }] });
    const refused = async (
      method: string,
      path: string,
      body: unknown,
      status: number,
      detail: RegExp,
    ) => {
      const answer = await call(method, path, body);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(answer.body.detail).toMatch(detail);
    };
    await refused('POST', '/evals/datasets', { name: 'qa' }, 409, /'qa' already exists/);
    await refused('POST', '/evals/datasets', { name: 'bad name!' }, 422, /name must be/);
    await refused('POST', '/evals/datasets', { description: 'x' }, 422, /name/);
    await refused(
      'POST',
      '/evals/datasets',
      { name: 'x', items: [{ reference: 1 }] },
      422,
      /items\.0\.input/,
    );
    await refused(
      'POST',
      '/evals/datasets',
      { name: 'x', runs: ['run-nope'] },
      404,
      /no run 'run-nope'/,
    );
    await refused('GET', '/evals/datasets/nope', undefined, 404, /no dataset 'nope'/);
    await refused(
      'POST',
      '/evals/datasets/nope/items',
      { items: [{ input: 1 }] },
      404,
      /no dataset 'nope'/,
    );
    await refused('DELETE', '/evals/datasets/nope', undefined, 404, /no dataset 'nope'/);
    await refused(
      'POST',
      '/evals/experiments',
      { dataset: 'nope', agent: 'Geo' },
      404,
      /no dataset 'nope'/,
    );
    await refused(
      'POST',
      '/evals/experiments',
      { dataset: 'qa' },
      422,
      /exactly one of agent and workflow/,
    );
    await refused(
      'POST',
      '/evals/experiments',
      { dataset: 'qa', agent: 'Nope' },
      422,
      /agent: no agent 'Nope'/,
    );
    await refused(
      'POST',
      '/evals/experiments',
      { dataset: 'qa', agent: 'Geo', scorers: ['x'] },
      422,
      /scorers: no scorer 'x'/,
    );
    await refused(
      'POST',
      '/evals/experiments',
      { dataset: 'qa', agent: 'Geo', concurrency: 99 },
      422,
      /concurrency/,
    );
    await refused(
      'POST',
      '/evals/experiments',
      { dataset: 'qa', agent: 'Geo', variant: { model: '' } },
      422,
      /variant.model/,
    );
    await refused('POST', '/evals/experiments', { agent: 'Geo' }, 422, /dataset/);
    await refused('GET', '/evals/experiments/exp_nope', undefined, 404, /no experiment 'exp_nope'/);
    // Nothing was played or kept for the refused ones.
    expect((await call('GET', '/evals/experiments')).body).toEqual({ experiments: [] });
    expect((await call('GET', '/evals/datasets')).body.datasets).toHaveLength(1);
  });
});
