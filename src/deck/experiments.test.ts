/**
 * Experiments end to end (#41): a dataset made from 20 recorded turns of a real agent against
 * the scripted model server (and one from items, as a JSONL file gives them), played with a
 * variant, graded by a code scorer and a judge (its replies scripted on the same server):
 * every score is a `score.recorded` event on its item's run, the variant's model reaches the
 * server, and the results are read back from the runs.
 */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../test/support/decks.js';
import { useScriptedModelServer } from '../../test/support/model-server.js';
import { threeSteps } from '../../test/support/workflows.js';
import { Agent, judgeScorer, Scorer } from '../index.js';

const modelServer = useScriptedModelServer();

const helper = () => new Agent({ name: 'Helper', instructions: 'Answer briefly.' });
const exact = new Scorer({
  name: 'exact',
  threshold: 1,
  score: ({ output, reference }) => (output === reference ? 1 : 0),
});
const judge = judgeScorer({
  name: 'judge',
  rubric: 'Same meaning as the reference.',
  threshold: 0.5,
});
const verdict = (score: number) => ({ text: JSON.stringify({ score, reason: `graded ${score}` }) });

describe('an experiment over a dataset of recorded runs', () => {
  it('plays each item as a run marked with the experiment, and records every score on it', async () => {
    const { deck, eventStore } = await openTestDeck({
      agents: [helper()],
      scorers: [exact, judge],
    });
    const server = modelServer();
    const runIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      server.push({ text: `answer ${i}` });
      runIds.push((await deck.run('Helper', `question ${i}`)).runId);
    }
    const dataset = await deck.evals.createDataset({ name: 'qa', runs: runIds });
    expect(dataset).toMatchObject({ name: 'qa', items: 20 });
    const { items } = await deck.evals.getDataset('qa');
    expect(items[3]).toMatchObject({
      input: 'question 3',
      reference: 'answer 3',
      runId: runIds[3],
    });

    // One item in two answers differently; one judge reply is not a verdict (the scorer throws).
    for (let i = 0; i < 20; i++) {
      server.push({ text: i === 7 ? 'something else' : `answer ${i}` });
      server.push(i === 12 ? { text: 'not json' } : verdict(i === 7 ? 0 : 0.9));
    }
    const before = server.requests.length;
    const view = await deck.experiment({
      dataset: 'qa',
      agent: 'Helper',
      variant: { model: 'gpt-4.1-mini', instructions: 'Answer in two words.' },
      concurrency: 1,
    });
    server.assertConsumed();
    const sent = server.requests.slice(before);
    const agentCalls = sent.filter((_, i) => i % 2 === 0);
    expect(agentCalls.map((r) => r.body.model)).toEqual(Array(20).fill('gpt-4.1-mini'));
    expect(JSON.stringify(agentCalls[0]?.body)).toContain('Answer in two words.');

    expect(view).toMatchObject({
      name: 'Helper (gpt-4.1-mini)',
      dataset: 'qa',
      target: { type: 'agent', name: 'Helper' },
      status: 'completed',
      items: 20,
      done: 20,
      scorers: ['exact', 'judge'],
    });
    expect(view.scores.exact).toEqual({ mean: 19 / 20, passed: 19, failed: 1 });
    expect(view.scores.judge).toMatchObject({ passed: 18, failed: 1 });
    expect(view.scores.judge?.mean).toBeCloseTo((18 * 0.9) / 19);
    expect(view.usd).toBeGreaterThan(0);
    expect(view.latencyMsP50).toBeGreaterThanOrEqual(0);
    expect(view.results.map((r) => r.itemId)).toEqual(items.map((item) => item.id));
    expect(view.results[7]).toMatchObject({ output: 'something else', status: 'completed' });
    expect(view.results[7]?.scores.exact).toEqual({ value: 0, passed: false, comment: null });
    expect(view.results[12]?.scores.judge).toMatchObject({ value: null, passed: null });
    expect(view.results[12]?.scores.judge?.comment).toMatch(/scorer 'judge' failed/);

    for (const [index, result] of view.results.entries()) {
      const events = await eventStore.read(result.runId as string);
      const started = events[0];
      expect(started?.kind).toBe('run.started');
      expect(started?.payload).toMatchObject({
        experiment: { id: view.id, item: items[index]?.id },
      });
      const scores = events.filter((e) => e.kind === 'score.recorded');
      expect(scores.map((e) => e.payload)).toEqual(
        [
          {
            name: 'exact',
            value: index === 7 ? 0 : 1,
            passed: index !== 7,
            comment: null,
            experiment: view.id,
          },
          index === 12
            ? null
            : {
                name: 'judge',
                value: index === 7 ? 0 : 0.9,
                passed: index !== 7,
                comment: `graded ${index === 7 ? 0 : 0.9}`,
                experiment: view.id,
              },
        ].filter(Boolean),
      );
      expect((await eventStore.getRun(result.runId as string))?.status).toBe('completed');
    }
    // The source runs are untouched: no score, no new event.
    expect(
      (await eventStore.read(runIds[0] as string)).some((e) => e.kind === 'score.recorded'),
    ).toBe(false);

    const listed = await deck.evals.listExperiments({ dataset: 'qa' });
    expect(listed.map((e) => e.id)).toEqual([view.id]);
    expect(listed[0]).not.toHaveProperty('results');
  });

  it('plays a dataset of given items, and refuses bad experiments before playing anything', async () => {
    const { deck } = await openTestDeck({ agents: [helper()], scorers: [exact] });
    await deck.evals.createDataset({
      name: 'file',
      items: [{ input: 'hi', reference: 'hello' }, { input: 'bye' }],
    });
    const server = modelServer();
    await expect(deck.experiment({ dataset: 'nope', agent: 'Helper' })).rejects.toThrow(
      /no dataset 'nope'/,
    );
    await expect(deck.experiment({ dataset: 'file' })).rejects.toThrow(
      /exactly one of agent and workflow/,
    );
    await expect(deck.experiment({ dataset: 'file', agent: 'Nobody' })).rejects.toThrow(
      /agent: no agent 'Nobody'/,
    );
    await expect(
      deck.experiment({ dataset: 'file', agent: 'Helper', scorers: ['nah'] }),
    ).rejects.toThrow(/scorers: no scorer 'nah'/);
    await expect(
      deck.experiment({ dataset: 'file', agent: 'Helper', concurrency: 0 }),
    ).rejects.toThrow(/concurrency/);
    await expect(
      deck.experiment({ dataset: 'file', agent: 'Helper', variant: { temperature: 1 } }),
    ).rejects.toThrow(/variant.temperature/);
    expect(server.requests).toHaveLength(0);
    expect(await deck.evals.listExperiments()).toEqual([]);

    server.push({ text: 'hello' }, { text: 'ciao' });
    const view = await deck.experiment({
      dataset: 'file',
      agent: 'Helper',
      name: 'baseline',
      concurrency: 2,
    });
    expect(view.scores.exact).toEqual({ mean: 0.5, passed: 1, failed: 1 });
    expect(view.results.map((r) => r.reference)).toEqual(['hello', null]);
  });

  it('plays a workflow over a dataset of its runs: initial states in, final states as references', async () => {
    const steps = new Scorer({
      name: 'steps',
      score: ({ output, reference }) => ({
        value: JSON.stringify(output) === JSON.stringify(reference) ? 1 : 0,
        comment: `n=${(output as { n: number }).n}`,
      }),
    });
    const { deck, eventStore } = await openTestDeck({
      workflows: [threeSteps()],
      scorers: [steps],
    });
    await deck.run('three-steps', { n: 1 });
    await deck.run('three-steps', { n: 10 });
    const runs = (await eventStore.listRuns({ origin: 'three-steps' }))
      .map((r) => r.runId)
      .reverse();
    expect(runs).toHaveLength(2);
    await deck.evals.createDataset({ name: 'counts', runs });
    const { items } = await deck.evals.getDataset('counts');
    expect(items.map((i) => [i.input, i.reference])).toEqual([
      [{ n: 1 }, { n: 4, steps: ['one', 'two', 'three'] }],
      [{ n: 10 }, { n: 13, steps: ['one', 'two', 'three'] }],
    ]);
    const view = await deck.experiment({
      dataset: 'counts',
      workflow: 'three-steps',
      variant: { label: 'same code' },
    });
    expect(view).toMatchObject({
      target: { type: 'workflow', name: 'three-steps' },
      variant: { label: 'same code' },
      scores: { steps: { mean: 1, passed: 0, failed: 0 } },
    });
    expect(view.results.map((r) => r.scores.steps?.comment)).toEqual(['n=4', 'n=13']);
    const started = (await eventStore.read(view.results[0]?.runId as string))[0];
    expect(started?.payload).toMatchObject({ experiment: { id: view.id, item: items[0]?.id } });
    await expect(deck.experiment({ dataset: 'counts', agent: 'nobody' })).rejects.toThrow(
      /agent: no agent/,
    );
  });
});
