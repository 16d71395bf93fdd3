/** The deck's observers (SPEC.md, Observers rules 1-3 and 6): checked at build, started at open, fed after storing, closed last. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { collect, openTestDeck, testDeck } from '../../test/support/decks.js';
import { threeSteps } from '../../test/support/workflows.js';
import { Agent, ConfigError, type Event, NotOpenError, type Observer, toWire } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

const greeter = (steps = [{ text: 'hi' }]) =>
  new Agent({ name: 'Greeter', instructions: 'Greet.', model: new ScriptedModel(steps) });

/** An observer that records what it is given, and when it is started and closed. */
function recorder(name: string, log: string[] = []) {
  const events: Event[] = [];
  const observer: Observer = {
    name,
    start: () => {
      log.push(`start ${name}`);
    },
    emit: (event) => {
      events.push(event);
      log.push(`${name} ${event.kind}`);
    },
    close: () => {
      log.push(`close ${name}`);
    },
  };
  return { events, observer, log };
}

describe('deck observers', () => {
  it('build() only checks that each observer is a sink; it starts nothing', async () => {
    const { observer, log } = recorder('a');
    const { deck } = testDeck({ agents: [greeter()], observers: [observer] });
    deck.build();
    expect(log).toEqual([]);
    await deck.close();
    const bad = testDeck({ observers: [{ start() {} } as unknown as Observer] }).deck;
    expect(() => bad.build()).toThrow(ConfigError);
    expect(() => bad.build()).toThrow(/'observers'\[0\] is not an observer: it needs an emit/);
    await bad.close();
    const notList = testDeck({ observers: 'langfuse' as unknown as Observer[] }).deck;
    expect(() => notList.build()).toThrow(/must be a list of observers/);
  });

  it('starts each observer in order at open, before any run, and closes them after the last event', async () => {
    const log: string[] = [];
    const a = recorder('a', log);
    const b = recorder('b', log);
    const { deck } = testDeck({ agents: [greeter()], observers: [a.observer, b.observer] });
    await deck.open();
    expect(log).toEqual(['start a', 'start b']);
    await deck.run('Greeter', 'hello');
    await deck.close();
    expect(log.slice(0, 2)).toEqual(['start a', 'start b']);
    expect(log.at(-1)).toMatch(/^close [ab]$/);
    for (const name of ['a', 'b']) {
      const own = log.filter((line) => line.startsWith(`${name} `) || line.endsWith(` ${name}`));
      expect(own.at(-2)).toBe(`${name} run.completed`);
      expect(own.at(-1)).toBe(`close ${name}`);
    }
  });

  it('refuses the open when a start() throws, and closes the observers already started', async () => {
    const log: string[] = [];
    const first = recorder('first', log);
    const failing: Observer = {
      name: 'failing',
      emit() {},
      start() {
        throw new ConfigError('collector unreachable');
      },
    };
    const { deck } = testDeck({ agents: [greeter()], observers: [first.observer, failing] });
    await expect(deck.open()).rejects.toThrow('collector unreachable');
    expect(deck.state).not.toBe('open');
    expect(log).toEqual(['start first', 'close first']);
    await expect(deck.run('Greeter', 'hi')).rejects.toThrow(NotOpenError);
  });

  it('hands every stored event to every observer, in order, for agent turns and workflow runs', async () => {
    const a = recorder('a');
    const b = recorder('b');
    const { deck, eventStore } = await openTestDeck({
      agents: [greeter([{ text: 'one' }, { text: 'two' }])],
      workflows: [threeSteps()],
      observers: [a.observer, b.observer],
    });
    const turn = await deck.run('Greeter', 'hello', { sessionId: 's1' });
    const streamed = await collect(deck.stream('Greeter', 'again', { sessionId: 's1' }));
    await deck.run('three-steps', { n: 0 });
    await deck.close();
    const runIds = [...new Set(a.events.map((e) => e.runId))];
    expect(runIds).toHaveLength(3);
    expect(runIds[0]).toBe(turn.runId);
    expect(runIds[1]).toBe(streamed[0]?.runId);
    const stored = (await Promise.all(runIds.map((id) => eventStore.read(id)))).flat();
    expect(a.events.map(toWire)).toEqual(stored.map(toWire));
    expect(b.events.map(toWire)).toEqual(stored.map(toWire));
  });

  it('a throwing observer costs the run nothing, and the others still get every event', async () => {
    const good = recorder('good');
    const thrower: Observer = {
      name: 'thrower',
      emit() {
        throw new Error('boom');
      },
    };
    const { deck, eventStore } = await openTestDeck({
      agents: [greeter()],
      observers: [thrower, good.observer],
    });
    const result = await deck.run('Greeter', 'hello');
    expect(result.output).toBe('hi');
    await deck.close();
    expect(good.events.map(toWire)).toEqual((await eventStore.read(result.runId)).map(toWire));
  });

  it('a blocked observer does not hold up the run: it only falls behind', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const blocked: Observer = {
      name: 'blocked',
      emit: async (event) => {
        seen.push(event.kind);
        await gate; // stands in for a round trip that takes seconds
      },
    };
    const { deck } = await openTestDeck({ agents: [greeter()], observers: [blocked] });
    const started = performance.now();
    const result = await deck.run('Greeter', 'hello');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(result.output).toBe('hi');
    await sleep(20);
    expect(seen).toEqual(['run.started']);
    release();
    await deck.close();
    expect(seen.at(-1)).toBe('run.completed');
  });

  it("hands the engine's own spans only to an observer asking for them; its failure costs the run nothing", async () => {
    const types: string[] = [];
    const wanting = {
      name: 'spans',
      sdkSpans: true,
      emit() {},
      emitEngineSpan: (s: { type: string }) => types.push(s.type),
    };
    const throwing = {
      name: 'throwing-spans',
      sdkSpans: true,
      emit() {},
      emitEngineSpan() {
        throw new Error('render failed');
      },
    };
    const { deck } = await openTestDeck({ agents: [greeter()], observers: [throwing, wanting] });
    expect((await deck.run('Greeter', 'hello')).output).toBe('hi');
    // The engine hands its spans over as they end, the turn's own (`task`) last: on a loaded
    // machine, a moment after the run's result.
    for (let i = 0; i < 100 && types.at(-1) !== 'task'; i++) await sleep(20);
    expect(types).toContain('agent');
    expect(types.at(-1)).toBe('task');
  });

  it('a direct Workflow.run() bypasses observers', async () => {
    const a = recorder('a');
    const workflow = threeSteps();
    await openTestDeck({ workflows: [workflow], observers: [a.observer] });
    expect(await workflow.run({ n: 1 })).toMatchObject({ n: 4 });
    await sleep(10);
    expect(a.events).toEqual([]);
  });
});
