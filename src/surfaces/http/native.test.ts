/** The native /v2 surface: exists and works, but `deck.app()` does not mount it. */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { parseSse, postJson } from '../../../test/support/http.js';
import { Agent, toWire } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { ScriptedModel } from '../../testing/index.js';
import { createNativeApp } from './native.js';

describe('POST /v2/invocables/{name}/chat', () => {
  it('streams every canonical event of the run as data: <event JSON>', async () => {
    const eventStore = new MemoryEventStore();
    const model = new ScriptedModel([{ text: ['Hel', 'lo'] }]);
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Greeter', model })],
      eventStore,
    });
    const response = await createNativeApp(deck).request(
      '/v2/invocables/Greeter/chat',
      postJson({ session_id: 's', message: 'hi' }),
    );
    expect(response.status).toBe(200);
    const frames = parseSse(await response.text());
    const [run] = await eventStore.listRuns();
    const logged = (await eventStore.read(run?.runId ?? '')).map((e) =>
      JSON.parse(JSON.stringify(toWire(e))),
    );
    expect(frames).toEqual(logged.map((data) => ({ data })));
    expect(logged.at(-1)?.kind).toBe('run.completed');
  });

  it('requires a non-empty session_id, and is not mounted by deck.app()', async () => {
    const { deck } = await openTestDeck({
      agents: [new Agent({ name: 'Greeter', model: new ScriptedModel([]) })],
    });
    const empty = await createNativeApp(deck).request(
      '/v2/invocables/Greeter/chat',
      postJson({ session_id: '', message: 'hi' }),
    );
    expect(empty.status).toBe(422);
    const unmounted = await deck
      .app()
      .request('/v2/invocables/Greeter/chat', postJson({ session_id: 's', message: 'hi' }));
    expect(unmounted.status).toBe(404);
  });
});
