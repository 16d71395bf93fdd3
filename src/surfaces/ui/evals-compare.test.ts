/**
 * The evals pages' plain module (assets/evals-compare.js, run by the browser as is): two
 * experiments paired item by item, the summary's deltas and which side did better, the body
 * a "Run experiment" form sends, how inputs and outputs read; and the evals pages' addresses
 * (assets/evals-routes.js).
 */
import { describe, expect, it } from 'vitest';
import {
  deltaText,
  differs,
  type ExperimentDetail,
  experimentBody,
  type ItemResult,
  itemScores,
  pairResults,
  scoreText,
  shown,
  summarize,
  variantText,
  versus,
} from './assets/evals-compare.js';
import { datasetHref, evalsRoute } from './assets/evals-routes.js';

const result = (item: string, output: string, scores: ItemResult['scores'], extra = {}) =>
  ({
    item_id: item,
    input: `question ${item}`,
    reference: `answer ${item}`,
    run_id: `run-${output}-${item}`,
    status: 'completed',
    output,
    scores,
    usd: 0.01,
    latency_ms: 100,
    ...extra,
  }) satisfies ItemResult;

const experiment = (id: string, results: ItemResult[], extra: Partial<ExperimentDetail> = {}) =>
  ({
    id,
    name: id,
    dataset: 'd',
    scorers: ['exact'],
    status: 'completed',
    items: results.length,
    done: results.length,
    scores: {},
    usd: null,
    latency_ms_p50: null,
    results,
    ...extra,
  }) satisfies ExperimentDetail;

const pass = (value: number) => ({ value, passed: value >= 1, comment: null });

describe('pairResults', () => {
  it('pairs the items in the dataset order, keeping an item only one side has', () => {
    const a = experiment('a', [
      result('i1', 'a1', {}),
      result('i2', 'a2', {}),
      result('i3', 'a3', {}),
    ]);
    const b = experiment('b', [
      result('i2', 'b2', {}),
      result('i1', 'b1', {}),
      result('i4', 'b4', {}),
    ]);
    const rows = pairResults(a, b);
    expect(rows.map((row) => row.item_id)).toEqual(['i1', 'i2', 'i3', 'i4']);
    expect(rows.map((row) => [row.a?.output ?? null, row.b?.output ?? null])).toEqual([
      ['a1', 'b1'],
      ['a2', 'b2'],
      ['a3', null],
      [null, 'b4'],
    ]);
    expect(rows[3]).toMatchObject({ input: 'question i4', reference: 'answer i4' });
  });

  it('reads an experiment without results (still loading) as no rows', () => {
    expect(pairResults(null, undefined)).toEqual([]);
    const a = experiment('a', [result('i1', 'a1', {})]);
    expect(pairResults(a, null).map((row) => row.b)).toEqual([null]);
  });
});

describe('versus', () => {
  it('says which side did better: a higher score, or a lower cost or latency', () => {
    expect(versus(0.5, 0.75)).toEqual({ a: 0.5, b: 0.75, delta: 0.25, better: 'b' });
    expect(versus(1, 0)).toMatchObject({ delta: -1, better: 'a' });
    expect(versus(0.02, 0.01, { lowerIsBetter: true })).toMatchObject({ better: 'b' });
    expect(versus(100, 250, { lowerIsBetter: true })).toMatchObject({ delta: 150, better: 'a' });
  });

  it('names no winner for a tie or a missing side', () => {
    expect(versus(1, 1)).toEqual({ a: 1, b: 1, delta: 0, better: null });
    expect(versus(null, 1)).toEqual({ a: null, b: 1, delta: null, better: null });
    expect(versus(undefined, undefined)).toEqual({ a: null, b: null, delta: null, better: null });
  });
});

describe('summarize', () => {
  it('gives each scorer its means, passes, and the items each side won', () => {
    const a = experiment(
      'a',
      [
        result('i1', 'a1', { exact: pass(1), judge: pass(0.5) }),
        result('i2', 'a2', { exact: pass(0), judge: pass(0.9) }),
        result('i3', 'a3', { exact: pass(1) }),
      ],
      {
        scorers: ['exact', 'judge'],
        scores: {
          exact: { mean: 2 / 3, passed: 2, failed: 1 },
          judge: { mean: 0.7, passed: 0, failed: 2 },
        },
        usd: 0.03,
        latency_ms_p50: 120,
      },
    );
    const b = experiment(
      'b',
      [
        result('i1', 'b1', { exact: pass(1), judge: pass(0.8) }),
        result('i2', 'b2', { exact: pass(1), judge: pass(0.4) }),
        result('i3', 'b3', { exact: pass(0), judge: pass(1) }),
      ],
      {
        scorers: ['judge', 'exact', 'length'],
        scores: {
          exact: { mean: 2 / 3, passed: 2, failed: 1 },
          judge: { mean: 0.733, passed: 1, failed: 2 },
        },
        usd: 0.01,
        latency_ms_p50: 300,
      },
    );
    const summary = summarize(a, b);
    expect(summary.scorers.map((s) => s.name)).toEqual(['exact', 'judge', 'length']);
    const [exact, judge, length] = summary.scorers;
    expect(exact?.mean).toEqual({ a: 2 / 3, b: 2 / 3, delta: 0, better: null });
    expect(exact?.wins).toEqual({ a: 1, b: 1, ties: 1 });
    expect(judge?.mean.better).toBe('b');
    expect(judge?.mean.delta).toBeCloseTo(0.033);
    expect(judge?.passed).toMatchObject({ a: 0, b: 1, better: 'b' });
    expect(judge?.wins).toEqual({ a: 1, b: 1, ties: 0 }); // i3 has no judge score on a
    expect(length?.mean).toEqual({ a: null, b: null, delta: null, better: null });
    expect(summary.usd).toMatchObject({ a: 0.03, b: 0.01, better: 'b' });
    expect(summary.latency).toMatchObject({ delta: 180, better: 'a' });
    expect(summary.done).toEqual({ a: 3, b: 3, items: 3 });
  });
});

describe('itemScores', () => {
  it('puts one item’s scores side by side with pass/fail and the better side', () => {
    const [row] = pairResults(
      experiment('a', [result('i1', 'a1', { exact: pass(0) })]),
      experiment('b', [result('i1', 'b1', { exact: pass(1), judge: pass(0.6) })]),
    );
    if (!row) throw new Error('no row');
    expect(itemScores(row, ['exact', 'judge'])).toEqual([
      {
        name: 'exact',
        a: { value: 0, passed: false, comment: null },
        b: { value: 1, passed: true, comment: null },
        delta: 1,
        better: 'b',
      },
      {
        name: 'judge',
        a: null,
        b: { value: 0.6, passed: false, comment: null },
        delta: null,
        better: null,
      },
    ]);
  });
});

describe('differs', () => {
  it('keeps an item whose value or pass/fail differs, or that one side lacks', () => {
    const rows = pairResults(
      experiment('a', [
        result('same', 'x', { exact: pass(1), judge: pass(0.5) }),
        result('value', 'x', { exact: pass(1), judge: pass(0.5) }),
        result('verdict', 'x', { exact: { value: 1, passed: true, comment: null } }),
        result('only-a', 'x', { exact: pass(1) }),
      ]),
      experiment('b', [
        result('same', 'y', { exact: pass(1), judge: pass(0.5) }),
        result('value', 'y', { exact: pass(1), judge: pass(0.6) }),
        result('verdict', 'y', { exact: { value: 1, passed: false, comment: null } }),
      ]),
    );
    const names = ['exact', 'judge'];
    expect(rows.filter((row) => differs(row, names)).map((row) => row.item_id)).toEqual([
      'value',
      'verdict',
      'only-a',
    ]);
  });
});

describe('experimentBody', () => {
  const form = { dataset: 'greetings', targetType: 'agent' as const, target: 'helper' };

  it('sends only what was filled in, the variant under its wire names', () => {
    expect(experimentBody(form)).toEqual({ body: { dataset: 'greetings', agent: 'helper' } });
    expect(
      experimentBody({
        ...form,
        name: '  colder ',
        model: 'gpt-b ',
        instructions: 'Answer in French.',
        settings: '{"temperature": 0}',
        scorers: ['exact', 'judge'],
      }),
    ).toEqual({
      body: {
        dataset: 'greetings',
        agent: 'helper',
        name: 'colder',
        variant: {
          model: 'gpt-b',
          instructions: 'Answer in French.',
          model_settings: { temperature: 0 },
        },
        scorers: ['exact', 'judge'],
      },
    });
    expect(
      experimentBody({ ...form, targetType: 'workflow', target: 'approval', settings: '  ' }),
    ).toEqual({ body: { dataset: 'greetings', workflow: 'approval' } });
  });

  it('names the field to fix: no target, settings that are not a JSON object', () => {
    expect(experimentBody({ ...form, target: '' })).toEqual({
      error: { field: 'target', message: 'Choose the agent to run.' },
    });
    const broken = experimentBody({ ...form, settings: '{temperature: 0}' });
    expect(broken.error?.field).toBe('settings');
    expect(broken.error?.message).toMatch(/^Settings are not JSON: /);
    expect(experimentBody({ ...form, settings: '[1]' }).error).toEqual({
      field: 'settings',
      message: 'Settings must be a JSON object, like {"temperature": 0}.',
    });
    for (const concurrency of ['0', '1.5', 'two']) {
      expect(experimentBody({ ...form, concurrency }).error).toEqual({
        field: 'concurrency',
        message: 'Concurrency is a whole number of runs, 1 or more.',
      });
    }
    expect(experimentBody({ ...form, concurrency: '4' }).body?.concurrency).toBe(4);
    expect(experimentBody({ ...form, concurrency: '' }).body).not.toHaveProperty('concurrency');
  });
});

describe('how values read', () => {
  it('shows text as text and anything else as JSON', () => {
    expect(shown('hello')).toBe('hello');
    expect(
      shown([
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ]),
    ).toBe('one\ntwo');
    expect(shown([{ type: 'image', url: 'x' }])).toBe(
      '[\n  {\n    "type": "image",\n    "url": "x"\n  }\n]',
    );
    expect(shown({ amount: 5 })).toBe('{\n  "amount": 5\n}');
    expect(shown(null)).toBe('');
  });

  it('rounds scores and signs deltas', () => {
    expect(scoreText(2 / 3)).toBe('0.667');
    expect(scoreText(null)).toBe('–');
    expect(deltaText(0.25)).toBe('+0.25');
    expect(deltaText(-0.1)).toBe('−0.1');
    expect(deltaText(0)).toBe('±0');
    expect(deltaText(null)).toBe('');
    expect(deltaText(-150, (ms) => `${ms} ms`)).toBe('−150 ms');
  });

  it('says a variant in one line', () => {
    expect(variantText({})).toBe('as declared');
    expect(variantText(null)).toBe('as declared');
    expect(
      variantText({
        model: 'gpt-b',
        instructions: 'Answer every question in French, briefly and politely.',
        model_settings: { temperature: 0 },
      }),
    ).toBe(
      'model gpt-b · instructions “Answer every question in French, briefl…” · settings {"temperature":0}',
    );
  });
});

describe('the evals pages’ addresses', () => {
  it('routes the datasets, a dataset and a comparison, names decoded', () => {
    expect(evalsRoute('/ui/evals')).toEqual({ page: 'evals' });
    expect(evalsRoute('/ui/evals/')).toEqual({ page: 'evals' });
    const href = datasetHref('sums / v2');
    expect(href).toBe('/ui/evals/datasets/sums%20%2F%20v2');
    expect(evalsRoute(href)).toEqual({ page: 'dataset', dataset: 'sums / v2' });
    expect(evalsRoute(`${href}/compare`)).toEqual({ page: 'compare', dataset: 'sums / v2' });
    expect(evalsRoute('/ui/evals/datasets/')).toBeNull();
    expect(evalsRoute('/ui/evals/datasets/a/b')).toBeNull();
    expect(evalsRoute('/ui/runs')).toBeNull();
  });
});
