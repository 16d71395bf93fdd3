/**
 * The compile-time half of the context check: the generics carry each site's requirement,
 * so a deck whose declared context cannot satisfy an agent is a type error, as `build()`
 * would report at run time.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  type Context,
  Context as ContextValues,
  Deck,
  needsContext,
  oneOf,
  protocol,
  tool,
  withContext,
} from '../index.js';

class Calendar {
  free(): string[] {
    return [];
  }
}
class TeamCalendar extends Calendar {
  team = 'core';
}
class Clock {
  now(): Date {
    return new Date();
  }
}

const slots = tool({
  name: 'slots',
  description: 'free slots',
  parameters: z.object({ day: z.string() }),
  context: Calendar,
  execute: (args, ctx) => {
    expectTypeOf(args).toEqualTypeOf<{ day: string }>();
    expectTypeOf(ctx.data).toEqualTypeOf<Calendar>();
    return ctx.data.free();
  },
});
const booker = new Agent({ name: 'Booker', tools: [slots] });

describe('context generics', () => {
  it('infers ctx.data from each kind of requirement', () => {
    tool({
      name: 'a',
      description: 'd',
      parameters: z.object({}),
      context: ContextValues.any,
      execute: (_args, ctx) => expectTypeOf(ctx.data).toEqualTypeOf<unknown>(),
    });
    tool({
      name: 'u',
      description: 'd',
      parameters: z.object({}),
      context: oneOf(Calendar, Clock),
      execute: (_args, ctx) => expectTypeOf(ctx.data).toEqualTypeOf<Calendar | Clock>(),
    });
    tool({
      name: 'p',
      description: 'd',
      parameters: z.object({}),
      context: protocol<Clock>('Clock', ['now']),
      execute: (_args, ctx) => expectTypeOf(ctx.data.now()).toEqualTypeOf<Date>(),
    });
    const instructions = needsContext(Calendar, (ctx) => ctx.data.free().join(', '));
    expectTypeOf(instructions).parameter(0).toEqualTypeOf<Context<Calendar>>();
    const node = withContext(Clock, (state: { n: number }, ctx) => ({
      at: ctx.data.now(),
      ...state,
    }));
    expectTypeOf(node).parameter(0).toEqualTypeOf<{ n: number }>();
  });

  it('types an agent by the context its tools, instructions and hooks need', () => {
    expectTypeOf(booker).toEqualTypeOf<Agent<Calendar, string>>();
    const hooked = new Agent({
      name: 'Hooked',
      hooks: {
        onToolEnd: needsContext(Clock, (ctx, tool, result) => void [ctx.data.now(), tool, result]),
      },
    });
    expectTypeOf(hooked).toEqualTypeOf<Agent<Clock, string>>();
  });

  it('accepts a deck context that is the required class or a subclass of it', () => {
    new Deck({ context: Calendar, agents: [booker] });
    new Deck({ context: TeamCalendar, agents: [booker] });
    const deck = new Deck({ context: TeamCalendar, agents: [booker] });
    expectTypeOf(deck).toEqualTypeOf<Deck<TeamCalendar>>();
  });

  it('refuses, at compile time, a deck context an agent cannot use', () => {
    // @ts-expect-error Clock is not a Calendar: the Booker's tool needs one
    new Deck({ context: Clock, agents: [booker] });
    const needsClock = new Agent({
      name: 'Timer',
      instructions: needsContext(Clock, (ctx) => ctx.data.now().toISOString()),
    });
    // @ts-expect-error Calendar has no now(): the Timer's instructions need a Clock
    new Deck({ context: Calendar, agents: [needsClock] });
  });

  it('refuses a run context of the wrong type', () => {
    const deck = new Deck({ context: Calendar, agents: [booker] });
    void deck.run('Booker', 'hi', { context: new TeamCalendar() });
    // @ts-expect-error a Clock is not the deck's Calendar
    void deck.run('Booker', 'hi', { context: new Clock() });
  });

  it('checks nothing when the deck declares no context', () => {
    const deck = new Deck({ agents: [booker] });
    void deck.run('Booker', 'hi', { context: new Clock() });
  });
});
