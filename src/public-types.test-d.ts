import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent, type Context, type Deck, type Event, type TurnResult, tool } from './index.js';

class Calendar {
  free(): string[] {
    return [];
  }
}

describe('public generics', () => {
  it('types ctx.data from the agent and tool context parameters', () => {
    new Agent<Calendar>({
      name: 'Booker',
      instructions: (ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<Context<Calendar>>();
        expectTypeOf(ctx.data.free()).toEqualTypeOf<string[]>();
        return 'x';
      },
    });
    tool<z.ZodObject<{ day: z.ZodString }>, Calendar>({
      name: 'slots',
      description: 'd',
      parameters: z.object({ day: z.string() }),
      execute: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ day: string }>();
        expectTypeOf(ctx.data).toEqualTypeOf<Calendar>();
        return ctx.data.free();
      },
    });
  });

  it('narrows events on kind', () => {
    const handle = (event: Event) => {
      if (event.kind === 'text.delta') expectTypeOf(event.payload.text).toEqualTypeOf<string>();
      if (event.kind === 'unknown') expectTypeOf(event.rawKind).toEqualTypeOf<string>();
    };
    expectTypeOf(handle).toBeFunction();
  });

  it('types run() results and options', () => {
    type Run = Deck<Calendar>['run'];
    expectTypeOf<Awaited<ReturnType<Run>>>().toEqualTypeOf<TurnResult<unknown>>();
    expectTypeOf<Parameters<Run>[2]>().toEqualTypeOf<
      { context?: Calendar; sessionId?: string; namespace?: string; runId?: string } | undefined
    >();
  });
});
