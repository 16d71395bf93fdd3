import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  type Context,
  type Deck,
  type Event,
  type TurnResult,
  tool,
  type WorkflowResult,
} from './index.js';

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
    const deck = null as unknown as Deck<Calendar>;
    expectTypeOf(deck.run('agent', 'hi')).resolves.toEqualTypeOf<TurnResult<unknown>>();
    expectTypeOf(deck.run('workflow', { amount: 1 })).resolves.toEqualTypeOf<WorkflowResult>();
    expectTypeOf(deck.answer('run-1', true)).resolves.toEqualTypeOf<WorkflowResult>();
    type Run = Deck<Calendar>['stream'];
    expectTypeOf<Parameters<Run>[2]>().toEqualTypeOf<
      | {
          context?: Calendar;
          sessionId?: string;
          namespace?: string;
          runId?: string;
          recursionLimit?: number;
          maxConcurrency?: number;
          multitask?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
          multitaskWaitMs?: number;
        }
      | undefined
    >();
  });
});
