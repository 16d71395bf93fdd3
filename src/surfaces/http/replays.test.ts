/**
 * The #41 routes through the app: `POST /runs/{run_id}/replay` reaches the scripted model with
 * the variant and answers the linked run; `GET .../checkpoints` lists a thread's checkpoints
 * and `POST .../fork` plays a fork with an edited state on its own thread; the 404, 409 and
 * 422 rows; a caller without the `run` role is refused.
 */
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { useScriptedModelServer } from '../../../test/support/model-server.js';
import { Agent, Workflow } from '../../index.js';

const modelServer = useScriptedModelServer();

const State = z.object({ n: z.number(), doubled: z.number().optional() });
const doubler = new Workflow({
  name: 'doubler',
  state: State,
  durable: true,
  durability: 'sync',
  graph: (state) =>
    new StateGraph(state)
      .addNode('double', (s: z.infer<typeof State>) => ({ doubled: s.n * 2 }))
      .addEdge(START, 'double')
      .addEdge('double', END),
});
const greeter = new Agent({ name: 'Greeter', instructions: 'Greet.', model: 'gpt-source' });

describe('replay and fork routes', () => {
  it('replays a turn, lists checkpoints and forks a thread over HTTP, refusing what it cannot do', async () => {
    const { deck } = await openTestDeck({ agents: [greeter], workflows: [doubler] });
    const app = deck.app();
    const post = (path: string, body: unknown) => app.request(path, postJson(body));
    modelServer().push({ text: 'Hello!' }, { text: 'Hi.' });
    const source = await deck.run('Greeter', 'Hi', { sessionId: 'h1' });

    const replayed = await post(`/runs/${source.runId}/replay`, {
      variant: { model: 'gpt-other', model_settings: { temperature: 0 } },
    });
    expect(replayed.status).toBe(200);
    const replay = await replayed.json();
    expect(replay).toMatchObject({
      status: 'completed',
      output: 'Hi.',
      derived_from: { run: source.runId, how: 'replay', changes: { model: 'gpt-other' } },
    });
    expect(replayed.headers.get('x-run-id')).toBe(replay.run_id);
    expect(modelServer().requests.at(-1)?.body).toMatchObject({
      model: 'gpt-other',
      temperature: 0,
    });

    await deck.run('doubler', { n: 2 }, { sessionId: 't1' });
    const listed = await app.request('/workflows/doubler/threads/t1/checkpoints');
    expect(listed.status).toBe(200);
    const { checkpoints } = await listed.json();
    expect(checkpoints.map((c: { next: string[] }) => c.next)).toEqual([[], ['double']]);
    const forked = await post('/workflows/doubler/threads/t1/fork', {
      checkpoint_id: checkpoints[1].id,
      state: { n: 21 },
      thread_id: 't1-fork',
    });
    expect(forked.status).toBe(200);
    expect(await forked.json()).toMatchObject({
      thread_id: 't1-fork',
      status: 'completed',
      state: { n: 21, doubled: 42 },
      derived_from: { how: 'fork', thread: 't1', checkpoint: checkpoints[1].id },
    });

    const status = async (sent: Response | Promise<Response>) => (await sent).status;
    expect(await status(post('/runs/nope/replay', {}))).toBe(404);
    expect(await status(post(`/runs/${source.runId}/replay`, { variant: { colour: 'red' } }))).toBe(
      422,
    );
    expect(await status(app.request('/workflows/doubler/threads/nope/checkpoints'))).toBe(404);
    expect(await status(post('/workflows/doubler/threads/t1/fork', { state: { n: 'two' } }))).toBe(
      422,
    );
    expect(await status(post('/workflows/doubler/threads/t1/fork', { thread_id: 't1-fork' }))).toBe(
      422,
    ); // the latest checkpoint is where t1 ended
    expect(
      await status(
        post('/workflows/doubler/threads/t1/fork', {
          checkpoint_id: checkpoints[1].id,
          thread_id: 't1-fork',
        }),
      ),
    ).toBe(409);
  });
});
