/** The per-request context of `deck.app()` is typed by the deck's declared context. */
import { describe, expectTypeOf, it } from 'vitest';
import type { Deck } from '../../index.js';
import type { AppOptions } from './options.js';

class Calendar {
  free(day: string): string[] {
    return [day];
  }
}

describe('deck.app({ context })', () => {
  it("takes a function of the request returning the deck's context type", () => {
    type Options = Parameters<Deck<Calendar>['app']>[0];
    expectTypeOf<Options>().toEqualTypeOf<AppOptions<Calendar> | undefined>();
    expectTypeOf<{ context: (r: Request) => Calendar }>().toExtend<NonNullable<Options>>();
    expectTypeOf<{ context: (r: Request) => Promise<Calendar> }>().toExtend<NonNullable<Options>>();
    expectTypeOf<{ context: (r: Request) => string }>().not.toExtend<NonNullable<Options>>();
    expectTypeOf<ReturnType<Deck['app']>['fetch']>().returns.toExtend<
      Response | Promise<Response>
    >();
  });
});
