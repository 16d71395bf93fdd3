/**
 * Timers beyond the shared suite: a thread no logged run matches, a non-durable workflow
 * that tries to sleep, and a woken node that declares a context (tick passes none).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../test/support/decks.js';
import { reminder } from '../../test/support/workflows.js';
import { ConfigError, InterruptResult, sleepUntil, Workflow, withContext } from '../index.js';
import { MemoryEventStore } from '../stores/memory/index.js';

const due = '2026-03-01T09:00:00Z';
const after = new Date('2026-03-01T09:00:01Z');
const sqliteFile = () =>
  `sqlite://${join(mkdtempSync(join(tmpdir(), 'agentdeck-timers-')), 'state.db')}`;

class Mailer {
  readonly sent: string[] = [];
}

describe('timers', () => {
  it('resumes a thread with no logged run straight from the checkpointer', async () => {
    const checkpoints = sqliteFile();
    const first = await openTestDeck({ checkpoints, workflows: [reminder()] });
    expect(await first.deck.run('reminder', { due }, { sessionId: 'orphan' })).toBeInstanceOf(
      InterruptResult,
    );
    await first.deck.close();

    // A second deck shares the checkpoints but not the log (e.g. the log was in memory).
    const eventStore = new MemoryEventStore();
    const { deck } = await openTestDeck({ checkpoints, eventStore, workflows: [reminder()] });
    expect(await deck.dueResumes(after)).toEqual([
      { workflow: 'reminder', threadId: 'orphan', wakeAt: '2026-03-01T09:00:00.000Z' },
    ]);
    expect(await deck.tick(after)).toEqual([
      {
        workflow: 'reminder',
        threadId: 'orphan',
        runId: null,
        result: { due, reminded: true },
        error: null,
      },
    ]);
    expect(await eventStore.listRuns()).toEqual([]);
    expect(await deck.dueResumes(after)).toEqual([]);
    expect(await eventStore.claimHolder('thread:reminder:orphan')).toBeNull();
  });

  it('fails the run of a non-durable workflow that calls sleepUntil()', async () => {
    const napper = new Workflow({
      name: 'napper',
      state: z.object({ done: z.boolean().optional() }),
      graph: (state) =>
        new StateGraph(state)
          .addNode('nap', () => {
            sleepUntil(due);
            return { done: true };
          })
          .addEdge(START, 'nap')
          .addEdge('nap', END),
    });
    const { deck, eventStore } = await openTestDeck({ workflows: [napper] });
    await expect(deck.run('napper', {})).rejects.toThrow(ConfigError);
    await expect(deck.run('napper', {})).rejects.toThrow(
      "workflow 'napper' called sleepUntil('2026-03-01T09:00:00.000Z') but is not durable",
    );
    const [run] = await eventStore.listRuns();
    expect(run?.status).toBe('failed');
  });

  it('gives a woken node that declares a context null, since tick() passes none', async () => {
    const seen: unknown[] = [];
    const State = z.object({ sent: z.boolean().optional() });
    const mail = new Workflow({
      name: 'mail',
      state: State,
      durable: true,
      graph: (state) =>
        new StateGraph(state)
          .addNode(
            'later',
            withContext(Mailer, (_s: z.infer<typeof State>, ctx) => {
              seen.push(ctx.data);
              sleepUntil(due);
              return { sent: ctx.data !== null };
            }),
          )
          .addEdge(START, 'later')
          .addEdge('later', END),
    });
    const { deck } = await openTestDeck({
      checkpoints: sqliteFile(),
      context: Mailer,
      workflows: [mail],
    });
    const mailer = new Mailer();
    await deck.run('mail', {}, { sessionId: 'm', context: mailer });
    const [outcome] = await deck.tick(after);
    expect(outcome?.result).toEqual({ sent: false });
    expect(seen).toEqual([mailer, null]);
  });
});
