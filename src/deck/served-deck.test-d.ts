/**
 * `Deck` is served over HTTP through `ServedDeck`, which `surfaces/http` declares so that it
 * never imports the class. Nothing names that interface in `deck.ts`: this file is what fails
 * to compile (`npm run typecheck`) when a method the routes or `serve()` call drifts.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { serve } from '../surfaces/http/serve.js';
import type { DeckGrants, ServedDeck } from '../surfaces/http/served-deck.js';
import { deckGrants } from './app-grants.js';
import type { Deck } from './deck.js';

class Calendar {
  free(day: string): string[] {
    return [day];
  }
}

describe('Deck as a ServedDeck', () => {
  it('has every method and property the HTTP routes and serve() use', () => {
    expectTypeOf<Deck>().toExtend<ServedDeck>();
    expectTypeOf<Deck<Calendar>>().toExtend<ServedDeck<Calendar>>();
  });

  it('grants its app what surfaces/http declares', () => {
    expectTypeOf(deckGrants).returns.toEqualTypeOf<DeckGrants>();
  });

  it("lets serve() infer the deck's context for the app's options", () => {
    const typed = (deck: Deck<Calendar>) => {
      void serve(deck, { app: { context: () => new Calendar() } });
      // @ts-expect-error: the deck declares a Calendar context, not a string
      void serve(deck, { app: { context: () => 'calendar' } });
    };
    expectTypeOf(typed).parameter(0).toEqualTypeOf<Deck<Calendar>>();
  });
});
