/**
 * `service runs` as an operator runs it: a real process on the SQLite file a deck in this
 * process writes (the default shared store), listing and showing runs and recording a
 * request for a run another process holds, and `agentdeck runs ls --status queued`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, type InterruptResult, tool, toWire } from '../src/index.js';
import { SqliteEventStore } from '../src/stores/sqlite/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { binArgs } from './support/cli.js';
import { openTestDeck } from './support/decks.js';
import { approval } from './support/workflows.js';

const run = promisify(execFile);

function service(path: string, ...args: string[]) {
  return run(process.execPath, binArgs('service', ...args), {
    env: { ...process.env, SERVICE_EVENTS: `sqlite://${path}` },
    timeout: 30_000,
  });
}

async function failure(promise: Promise<unknown>) {
  const error = (await promise.catch((caught: unknown) => caught)) as {
    code?: number;
    stderr?: string;
  };
  return { code: error.code, stderr: error.stderr ?? '' };
}

describe('service runs', () => {
  it('lists, shows and signals the runs of a shared store', { timeout: 60_000 }, async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentdeck-cli-')), 'state.db');
    const eventStore = new SqliteEventStore({ path });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'double', arguments: { n: 21 } }] },
      { text: 'It is 42.' },
    ]);
    const { deck } = await openTestDeck({
      eventStore,
      workflows: [approval()],
      agents: [
        new Agent({
          name: 'Calc',
          model,
          tools: [
            tool({
              name: 'double',
              description: 'Double a number',
              parameters: z.object({ n: z.number() }),
              execute: ({ n }) => n * 2,
            }),
          ],
        }),
      ],
    });
    const turn = await deck.run('Calc', 'double 21', { sessionId: 'chat-1' });
    const waiting = (await deck.run(
      'approval',
      { amount: 7 },
      { sessionId: 't-7' },
    )) as InterruptResult;
    const waitingId = waiting.runId as string;

    const ls = await service(path, 'runs', 'ls');
    const lines = ls.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^started\s+status\s+origin\s+session\s+run$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(1))).toEqual([
      ['waiting_human', 'approval', 't-7', waitingId],
      ['completed', 'Calc', 'chat-1', turn.runId],
    ]);
    const filtered = await service(path, 'runs', 'ls', '--status', 'completed', '--json');
    expect(JSON.parse(filtered.stdout)).toEqual([
      expect.objectContaining({ run_id: turn.runId, origin: 'Calc', status: 'completed' }),
    ]);

    const show = await service(path, 'runs', 'show', turn.runId);
    expect(show.stdout).toContain(`run       ${turn.runId}`);
    expect(show.stdout).toContain('status    completed');
    expect(show.stdout).toMatch(/tool\.call\.started\s+double\(\{"n":21\}\)/);
    expect(show.stdout).toMatch(/tool\.call\.completed\s+double -> 42/);
    const asJson = JSON.parse((await service(path, 'runs', 'show', turn.runId, '--json')).stdout);
    const stored = await eventStore.read(turn.runId);
    expect(asJson.events).toEqual(stored.map((e) => JSON.parse(JSON.stringify(toWire(e)))));

    const signal = await service(path, 'runs', 'signal', waitingId, 'pause', '--reason', 'lunch');
    expect(signal.stdout).toMatch(
      new RegExp(
        `^recorded pause request [0-9a-f-]+ for run ${waitingId} \\(approval, status waiting_human\\)`,
      ),
    );
    expect((await eventStore.readControl(waitingId)).map((r) => [r.verb, r.reason])).toEqual([
      ['pause', 'lunch'],
    ]);
    expect((await eventStore.read(waitingId)).at(-1)).toMatchObject({
      kind: 'control.requested',
      payload: { verb: 'pause', reason: 'lunch' },
    });
    expect(await deck.status(waitingId)).toBe('waiting_human'); // a request, not a status change

    const unknown = await failure(service(path, 'runs', 'signal', 'no-such-run', 'cancel'));
    expect(unknown).toEqual({
      code: 1,
      stderr: "service: no run 'no-such-run' in the event log; nothing to cancel\n",
    });
    const badVerb = await failure(service(path, 'runs', 'signal', waitingId, 'stop'));
    expect(badVerb.code).toBe(2);
    expect(badVerb.stderr).toContain("unknown verb 'stop'; use pause, cancel or resume");
    const missing = await failure(service(path, 'runs', 'show', 'nope'));
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toContain("no run 'nope' in the event store");

    // A run is named by the start of its id when it is the only one; the ids made in the same
    // second share their first characters (time-ordered), so their common start names both.
    let common = '';
    while (turn.runId[common.length] === waitingId[common.length])
      common += turn.runId[common.length];
    const [byPrefix, ambiguous, ended] = await Promise.all([
      service(path, 'runs', 'show', turn.runId.slice(0, common.length + 1)),
      failure(service(path, 'runs', 'show', common)),
      failure(service(path, 'runs', 'signal', turn.runId, 'resume')),
    ]);
    expect(byPrefix.stdout).toContain(`run       ${turn.runId}`);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(`service: '${common}' is the start of several run ids (`);
    expect(ambiguous.stderr).toContain(turn.runId);
    expect(ambiguous.stderr).toContain(waitingId);
    // A signal to a run that has ended says so, and records nothing.
    expect(ended).toEqual({
      code: 1,
      stderr: `service: run ${turn.runId} has ended (completed); there is nothing to resume, and no request was recorded\n`,
    });
    expect(await eventStore.readControl(turn.runId)).toEqual([]);

    // A background run no worker of this deck takes (its origin is not in the catalog) stays
    // queued: `agentdeck runs ls --status queued` lists it, and only it.
    const queued = await eventStore.enqueue(
      {
        kind: 'run.queued',
        runId: 'queued-run-1',
        sessionId: null,
        namespace: null,
        origin: 'Later',
        payload: { invocableType: 'agent', input: [], key: 'acme', priority: 0 },
      },
      { concurrency: null, rate: null },
    );
    const ls2 = await run(
      process.execPath,
      binArgs('agentdeck', 'runs', 'ls', '--status', 'queued'),
      {
        env: { ...process.env, SERVICE_EVENTS: `sqlite://${path}` },
        timeout: 30_000,
      },
    );
    expect(
      ls2.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/).slice(1)),
    ).toEqual([['queued', 'Later', '-', queued.runId]]);
    await deck.close();
    await eventStore.close();
  });
});
