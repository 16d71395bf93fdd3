/**
 * Workflow versions (#42): a durable thread paused under one graph, resumed by a deck opened
 * on the same files with another ("a redeploy"). It goes on when the nodes it waits at exist
 * and its state parses (recording from which version to which), else the answer is refused
 * naming the node or field and the thread stays as it was; `migrate()` carries it over.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { tempStateFile } from '../../test/support/sqlite-files.js';
import { ConflictError, type InterruptResult, interrupt, Workflow } from '../index.js';
import { SqliteEventStore } from '../stores/sqlite/index.js';

const V1 = z.object({ amount: z.number(), approved: z.boolean().optional() });
type S = z.infer<typeof V1> & Record<string, unknown>;

interface Shape {
  version: string;
  state?: z.ZodObject;
  ask?: string;
  after?: string[];
  migrate?: Workflow['migrate'];
}

function approval({ version, state = V1, ask = 'ask', after = [], migrate }: Shape) {
  return new Workflow({
    name: 'approval',
    durable: true,
    version,
    state,
    ...(migrate ? { migrate } : {}),
    graph: (schema) => {
      // biome-ignore lint/suspicious/noExplicitAny: a graph built node by node from a list
      let graph: any = new StateGraph(schema as typeof V1).addNode(ask, () => ({
        approved: interrupt<boolean>({ question: 'approve?' }),
      }));
      for (const node of after) graph = graph.addNode(node, (s: S) => ({ amount: s.amount + 1 }));
      graph = graph.addEdge(START, ask);
      let last = ask;
      for (const node of after) {
        graph = graph.addEdge(last, node);
        last = node;
      }
      return graph.addEdge(last, END);
    },
  });
}

/** Files shared by two decks: its event log and its checkpoints. */
function files() {
  return { events: tempStateFile('versions-events'), checkpoints: tempStateFile('versions-cp') };
}

async function deckOn(where: ReturnType<typeof files>, workflow: Workflow) {
  const { deck, eventStore } = await openTestDeck({
    workflows: [workflow],
    eventStore: new SqliteEventStore({ path: where.events }),
    checkpoints: `sqlite://${where.checkpoints}`,
  });
  return Object.assign(deck, { log: eventStore });
}

/** Pause a thread under `v1`, close that deck, and open one with `v2` on the same files. */
async function redeploy(v1: Shape, v2: Shape) {
  const where = files();
  const first = await deckOn(where, approval(v1));
  const paused = (await first.run(
    'approval',
    { amount: 10 },
    { sessionId: 't1' },
  )) as InterruptResult;
  await first.close();
  const deck = await deckOn(where, approval(v2));
  return { deck, runId: paused.runId as string };
}

async function resumedEvent(deck: Awaited<ReturnType<typeof deckOn>>, runId: string) {
  const events = await deck.log.read(runId);
  return events.find((e) => e.kind === 'run.resumed');
}

describe('workflow versions', () => {
  it('goes on when a node is added after the waiting one, recording v1 -> v2', async () => {
    const { deck, runId } = await redeploy({ version: 'v1' }, { version: 'v2', after: ['notify'] });
    expect(await deck.pending()).toMatchObject([{ runId }]);
    expect((await deck.pending())[0]?.blocked).toBeUndefined();
    expect(await deck.answer(runId, true)).toEqual({ amount: 11, approved: true });
    expect((await resumedEvent(deck, runId))?.payload).toMatchObject({
      graph: { from: 'v1', to: 'v2' },
    });
  });

  it('goes on when the node after the waiting one was renamed', async () => {
    const v1 = { version: 'v1', after: ['notify'] };
    const { deck, runId } = await redeploy(v1, { version: 'v2', after: ['send'] });
    expect(await deck.answer(runId, true)).toEqual({ amount: 11, approved: true });
  });

  it('goes on under the same graph without recording a change', async () => {
    const { deck, runId } = await redeploy({ version: 'v1' }, { version: 'v1' });
    expect(await deck.answer(runId, true)).toEqual({ amount: 10, approved: true });
    expect((await resumedEvent(deck, runId))?.payload).not.toHaveProperty('graph');
  });

  it.each([
    ['renamed', 'review'],
    ['removed', 'check'],
  ])('refuses an answer when the waiting node was %s, and the thread stays', async (_, ask) => {
    const { deck, runId } = await redeploy({ version: 'v1' }, { version: 'v2', ask });
    const refusal = deck.answer(runId, true);
    await expect(refusal).rejects.toThrow(ConflictError);
    await expect(refusal).rejects.toThrow(/waits at node 'ask', which graph v2/);
    const [item] = await deck.pending();
    expect(item?.blocked).toMatch(/waits at node 'ask'/);
    expect(await deck.status(runId)).toBe('waiting_human');
    expect(await resumedEvent(deck, runId)).toBeUndefined();
  });

  const V2 = V1.extend({ currency: z.string() });

  it('refuses when a required state field was added, naming it', async () => {
    const { deck, runId } = await redeploy({ version: 'v1' }, { version: 'v2', state: V2 });
    await expect(deck.answer(runId, true)).rejects.toThrow(/does not parse .*currency/);
    expect((await deck.pending())[0]?.blocked).toMatch(/currency/);
    expect(await deck.status(runId)).toBe('waiting_human');
  });

  it('carries the thread over with migrate() when a required field was added', async () => {
    const seen: unknown[] = [];
    const migrate = ({ state, from }: { state: Record<string, unknown>; from: string | null }) => {
      seen.push({ state, from });
      return { ...state, currency: 'EUR' };
    };
    const { deck, runId } = await redeploy(
      { version: 'v1' },
      { version: 'v2', state: V2, migrate },
    );
    expect((await deck.pending())[0]?.blocked).toBeUndefined();
    expect(await deck.answer(runId, true)).toEqual({ amount: 10, approved: true, currency: 'EUR' });
    expect(seen.at(-1)).toEqual({ state: { amount: 10 }, from: 'v1' });
    expect((await resumedEvent(deck, runId))?.payload).toMatchObject({
      graph: { from: 'v1', to: 'v2' },
    });
  });
});
