/**
 * `build()`'s context verdicts through a real Deck: every injection site (a tool, an
 * instructions function, a hook method, a graph node) is ruled on against the declared
 * type, every incompatible one reported in one ContextTypeError (message checked
 * literally), compatible ones run, and deferred ones are checked on the value at invocation.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { tool as engineTool } from '@openai/agents-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testDeck } from '../../test/support/decks.js';
import {
  Agent,
  ConfigError,
  Context,
  type ContextRequirement,
  ContextTypeError,
  type DeckTool,
  needsContext,
  oneOf,
  protocol,
  tool,
  typeParameter,
  Workflow,
  withContext,
} from '../index.js';
import { ScriptedModel } from '../testing/index.js';

class Calendar {
  readonly booked: string[] = [];
  free(): string[] {
    return ['9am'];
  }
}
class TeamCalendar extends Calendar {
  readonly team = 'core';
}
class Clock {
  now(): Date {
    return new Date(0);
  }
}

const State = z.object({ seen: z.string().optional() });
type StateT = z.infer<typeof State>;

/** A tool that records the value it receives. */
function probeTool<C>(requirement: ContextRequirement<C> | undefined, seen: unknown[]) {
  return tool({
    name: 'probe',
    description: 'Look at the context',
    parameters: z.object({}),
    ...(requirement ? { context: requirement } : {}),
    execute: (_args, ctx) => {
      seen.push(ctx.data);
      return 'ok';
    },
  });
}

/** An agent whose model calls `probe` once, then answers. */
function probingAgent<C>(name: string, probe: DeckTool<z.ZodObject<Record<string, never>>, C>) {
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'probe', arguments: {} }] },
    { text: 'done' },
  ]);
  return new Agent({ name, model, tools: [probe] });
}

function nodeWorkflow(name: string, node: (state: StateT) => Partial<StateT>) {
  return new Workflow({
    name,
    state: State,
    graph: (state) =>
      new StateGraph(state).addNode('plan', node).addEdge(START, 'plan').addEdge('plan', END),
  });
}

describe('build(): incompatible sites', () => {
  it('reports every incompatible site at once, naming each with its agent or workflow', () => {
    const booker = new Agent({
      name: 'Booker',
      instructions: needsContext(TeamCalendar, () => 'Book.'),
      tools: [probeTool(Calendar, [])],
      hooks: { onEnd: needsContext(protocol('Lister', ['free']), () => undefined) },
    });
    const trip = nodeWorkflow(
      'trip',
      withContext(oneOf(Calendar, TeamCalendar), () => ({})),
    );
    const { deck } = testDeck({ context: Clock, agents: [booker] as never, workflows: [trip] });
    let error: unknown;
    try {
      deck.build();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ContextTypeError);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ContextTypeError).code).toBe('context_type');
    expect((error as Error).message).toBe(
      [
        "deck 'agentdeck' provides a context of type Clock, but 4 sites require something else:",
        "- tool 'probe' of agent 'Booker' requires Calendar: Clock is not Calendar and does not extend it",
        "- instructions of agent 'Booker' requires TeamCalendar: Clock is not TeamCalendar and does not extend it",
        "- hook method onEnd of agent 'Booker' requires protocol Lister { free() }: Clock has no method free() " +
          '(methods are read from the class; an arrow-function field is not one: declare it as a method)',
        "- node 'plan' of workflow 'trip' requires Calendar | TeamCalendar: Clock matches no arm of the union",
        'Fix: declare a context class that satisfies every site (one that extends each required class ' +
          "and has each protocol's methods), or change a site's requirement to one Clock satisfies " +
          '(Clock itself, a class it extends, a protocol it implements, or Context.any).',
      ].join('\n'),
    );
    // Nothing was built: the deck stays NEW and refuses to open the same way.
    expect(deck.state).toBe('new');
    return expect(deck.open()).rejects.toBeInstanceOf(ContextTypeError);
  });

  it('names a single site in the singular, and a subclass requirement as such', () => {
    const { deck } = testDeck({
      name: 'bookings',
      context: Calendar,
      workflows: [
        nodeWorkflow(
          'trip',
          withContext(TeamCalendar, () => ({})),
        ),
      ],
    });
    expect(() => deck.build()).toThrow(
      "deck 'bookings' provides a context of type Calendar, but 1 site requires something else:\n" +
        "- node 'plan' of workflow 'trip' requires TeamCalendar: TeamCalendar is a subclass of Calendar; a Calendar may lack what it adds\n",
    );
  });

  it('checks nothing when the deck declares no context, and run({ context }) still works', async () => {
    const seen: unknown[] = [];
    const agent = probingAgent('Booker', probeTool(Calendar, seen));
    const { deck } = testDeck({ agents: [agent] });
    await deck.open();
    const calendar = new Calendar();
    await deck.run('Booker', 'go', { context: calendar });
    expect(seen).toEqual([calendar]);
    expect(seen[0]).toBe(calendar);
  });
});

describe('build(): compatible sites run with the value by reference', () => {
  const cases = [
    ['the exact declared type', Calendar, Calendar],
    ['a supertype of the declared type', Calendar, TeamCalendar],
    ['Context.any', Context.any, Clock],
    ['a union with a matching arm', oneOf(Clock, Calendar), TeamCalendar],
    ['a methods-only protocol the class implements', protocol('Lister', ['free']), TeamCalendar],
  ] as const;

  for (const [label, requirement, declared] of cases) {
    it(`${label}: a tool and a node`, async () => {
      const seen: unknown[] = [];
      const agent = probingAgent('Booker', probeTool(requirement, seen));
      const flow = nodeWorkflow(
        'flow',
        withContext(requirement, (_s, ctx) => {
          seen.push(ctx.data);
          return { seen: 'yes' };
        }),
      );
      const { deck } = testDeck({
        context: declared as never,
        agents: [agent] as never,
        workflows: [flow],
      });
      deck.build();
      await deck.open();
      const value = new declared();
      await deck.run('Booker', 'go', { context: value });
      expect(await deck.run('flow', {}, { context: value })).toEqual({ seen: 'yes' });
      expect(seen).toHaveLength(2);
      for (const received of seen) expect(received).toBe(value);
    });
  }
});

describe('deferred sites: build passes, the value is checked at invocation', () => {
  it('a protocol naming properties', async () => {
    const tenant = protocol('Tenant', ['quota'], { properties: ['tenantId'] });
    const seen: unknown[] = [];
    const { deck } = testDeck({
      context: Calendar,
      // The compiler already refuses this (Calendar has no tenantId); build() defers.
      agents: [
        probingAgent('Good', probeTool(tenant, seen)),
        probingAgent('Bad', probeTool(tenant, seen)),
      ] as never,
    });
    deck.build();
    await deck.open();
    class Acme extends Calendar {
      readonly tenantId = 'acme';
      quota() {
        return 3;
      }
    }
    const acme = new Acme();
    await deck.run('Good', 'go', { context: acme });
    expect(seen).toEqual([acme]);
    await expect(deck.run('Bad', 'go', { context: new Calendar() })).rejects.toThrow(
      new ContextTypeError(
        "tool 'probe' of agent 'Bad' requires a context of protocol Tenant { quota(); tenantId }, but the run was " +
          'given an instance of Calendar (it lacks quota(), tenantId); pass a value that satisfies protocol Tenant { quota(); tenantId } as `context`',
      ),
    );
    expect(seen).toHaveLength(1);
  });

  it('a type parameter, checked against its bound', async () => {
    const seen: unknown[] = [];
    const flow = nodeWorkflow(
      'flow',
      withContext(typeParameter('T', Calendar), (_s, ctx) => {
        seen.push(ctx.data);
        return { seen: 'yes' };
      }),
    );
    const { deck } = testDeck({ context: Clock, workflows: [flow] });
    deck.build();
    await deck.open();
    await expect(deck.run('flow', {}, { context: new Clock() })).rejects.toThrow(
      "node 'plan' of workflow 'flow' requires a context of type parameter T extends Calendar, but the run was given an instance of Clock",
    );
    expect(seen).toEqual([]);
  });

  it('an already-built engine tool', async () => {
    let received: unknown = 'not called';
    const built = engineTool({
      name: 'probe',
      description: 'An @openai/agents tool',
      parameters: z.object({}),
      execute: (_args, runContext) => {
        received = runContext?.context === undefined ? 'no context' : 'a run context';
        return 'ok';
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'probe', arguments: {} }] },
      { text: 'done' },
    ]);
    const { deck } = testDeck({
      context: Clock,
      agents: [new Agent({ name: 'Booker', model, tools: [built] })],
    });
    deck.build();
    await deck.open();
    await deck.run('Booker', 'go', { context: new Clock() });
    expect(received).toBe('a run context');
  });

  it('a node whose signature cannot be read (a compiled subgraph)', async () => {
    const seen: unknown[] = [];
    const inner = new StateGraph(State)
      .addNode(
        'inner',
        withContext(Calendar, (_s: StateT, ctx) => {
          seen.push(ctx.data);
          return { seen: 'inner' };
        }),
      )
      .addEdge(START, 'inner')
      .addEdge('inner', END)
      .compile();
    const flow = new Workflow({
      name: 'outer',
      state: State,
      graph: (state) =>
        new StateGraph(state).addNode('sub', inner).addEdge(START, 'sub').addEdge('sub', END),
    });
    // The deck declares Clock: build cannot see into the subgraph, so it defers.
    const { deck } = testDeck({ context: Clock, workflows: [flow] });
    deck.build();
    await deck.open();
    await expect(deck.run('outer', {}, { context: new Clock() })).rejects.toThrow(
      "node 'inner' of workflow 'outer' requires a context of Calendar, but the run was given an instance of Clock",
    );
    const calendar = new Calendar();
    expect(await deck.run('outer', {}, { context: calendar as never })).toEqual({ seen: 'inner' });
    expect(seen).toEqual([calendar]);
  });
});

describe('declarations', () => {
  it('refuse an instance where a requirement belongs, saying to pass the class', () => {
    expect(() =>
      tool({
        name: 'probe',
        description: 'd',
        parameters: z.object({}),
        context: new Calendar() as never,
        execute: () => 'ok',
      }),
    ).toThrow(
      "tool 'probe': `context` must be a class, Context.any, oneOf(), protocol() or typeParameter(), not an instance; pass the value itself on each run",
    );
    expect(() => needsContext(new Calendar() as never, () => 'x')).toThrow(
      'needsContext(requirement, fn): requirement must be a class',
    );
    expect(() => withContext('any' as never, () => ({}))).toThrow(
      'withContext(requirement, node): requirement must be a class',
    );
  });
});

describe('invocation checks on agent callables', () => {
  it('fails the turn when instructions get a value of the wrong type', async () => {
    const model = new ScriptedModel([]);
    const agent = new Agent({
      name: 'Booker',
      model,
      instructions: needsContext(Calendar, (ctx) => `free: ${ctx.data.free()}`),
    });
    const { deck } = testDeck({ agents: [agent] });
    await deck.open();
    await expect(deck.run('Booker', 'go', { context: new Clock() })).rejects.toThrow(
      "instructions of agent 'Booker' requires a context of Calendar, but the run was given an instance of Clock",
    );
    expect(model.calls).toHaveLength(0);
  });
});
