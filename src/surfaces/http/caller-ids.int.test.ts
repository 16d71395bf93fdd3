/**
 * The ids a caller chooses over HTTP (#36): a NUL character, or an id over `MAX_ID_BYTES`, is
 * a 422 naming the field on every route that takes one, on Postgres (which cannot store the
 * one nor index the other) as on SQLite; an id at the limit works on both, checkpoints
 * included.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { useScriptedModelServer } from '../../../test/support/model-server.js';
import { schemaStores, TEST_POSTGRES_URL } from '../../../test/support/postgres.js';
import { openSqliteStore, tempStateFile } from '../../../test/support/sqlite-files.js';
import { approval } from '../../../test/support/workflows.js';
import { MAX_ID_BYTES } from '../../core/ids.js';
import { Agent, InvalidInputError } from '../../index.js';

useScriptedModelServer(); // a turn that got past the checks would fail at once, not call out
const postgres = schemaStores(4);

const backends = [
  {
    label: 'Postgres',
    open: () => ({
      eventStore: postgres.open(postgres.freshSchema()),
      checkpoints: TEST_POSTGRES_URL,
    }),
  },
  { label: 'SQLite', open: () => ({ eventStore: openSqliteStore(tempStateFile('ids')) }) },
];

const LONG = 'x'.repeat(3000);

async function detailOf(response: Response): Promise<string> {
  return ((await response.json()) as { detail: string }).detail;
}

describe.each(backends)('ids a caller chooses ($label)', ({ open }) => {
  const workflow = `approval-${randomUUID().slice(0, 8)}`;
  async function app() {
    const { deck } = await openTestDeck({
      ...open(),
      agents: [new Agent({ name: 'Greeter' })],
      workflows: [approval({ name: workflow, durable: true })],
    });
    return Object.assign(deck.app(), { deck });
  }

  it('a NUL character is a 422 naming the field, on every route that takes an id', async () => {
    const served = await app();
    const post = { method: 'POST' };
    const cases: [string, RequestInit | undefined, string][] = [
      ['/runs/r%00x', undefined, "path parameter 'run_id'"],
      ['/runs/r%00x/events?follow=false', undefined, "path parameter 'run_id'"],
      ['/runs/r%00x/pause', post, "path parameter 'run_id'"],
      ['/runs/r%00x/cancel', post, "path parameter 'run_id'"],
      ['/runs/r%00x/resume', post, "path parameter 'run_id'"],
      ['/runs/r%00x/answer', postJson({ value: 1 }), "path parameter 'run_id'"],
      [`/workflows/${workflow}/t%00x/resume`, postJson({ value: 1 }), "path parameter 'thread_id'"],
      [`/threads/${workflow}/t%00x`, undefined, "path parameter 'thread_id'"],
      ['/sessions/s%00x', undefined, "path parameter 'session_id'"],
      ['/runs?session_id=s%00x', undefined, "query parameter 'session_id'"],
      ['/runs?origin=o%00x', undefined, "query parameter 'origin'"],
      [
        `/workflows/${workflow}?thread_id=t%00x`,
        postJson({ amount: 1 }),
        "query parameter 'thread_id'",
      ],
      [
        '/agents/Greeter/chat',
        postJson({ session_id: 's\u0000x', message: 'hi' }),
        "field 'session_id'",
      ],
    ];
    for (const [path, init, field] of cases) {
      const response = await served.request(path, init);
      expect({ path, status: response.status }).toEqual({ path, status: 422 });
      expect(await detailOf(response)).toContain(`${field}: holds a NUL character`);
    }
    // The deck refuses the same ids, whoever calls it.
    await expect(served.deck.status('r\u0000x')).rejects.toThrow(InvalidInputError);
    await expect(served.deck.answer(LONG, 1)).rejects.toThrow('runId is 3000 bytes long');
    await expect(served.deck.pause('r\u0000x')).rejects.toThrow(InvalidInputError);
  });

  it(`an id over ${MAX_ID_BYTES} bytes is a 422 naming the field; one at the limit works`, async () => {
    const served = await app();
    const cases: [string, RequestInit | undefined, string][] = [
      ['/agents/Greeter/chat', postJson({ session_id: LONG, message: 'hi' }), "field 'session_id'"],
      [
        `/workflows/${workflow}?thread_id=${LONG}`,
        postJson({ amount: 1 }),
        "query parameter 'thread_id'",
      ],
      [`/runs?session_id=${LONG}`, undefined, "query parameter 'session_id'"],
      [`/runs/${LONG}`, undefined, "path parameter 'run_id'"],
      [
        `/workflows/${workflow}/${LONG}/resume`,
        postJson({ value: 1 }),
        "path parameter 'thread_id'",
      ],
    ];
    for (const [path, init, field] of cases) {
      const response = await served.request(path, init);
      expect({ path: path.slice(0, 40), status: response.status }).toEqual({
        path: path.slice(0, 40),
        status: 422,
      });
      expect(await detailOf(response)).toContain(`${field}: is 3000 bytes long`);
    }

    // 1,024 bytes of UTF-8 exactly: two bytes a character after the 36 of a UUID.
    const thread = `${randomUUID()}${'é'.repeat((MAX_ID_BYTES - 36) / 2)}`;
    expect(Buffer.byteLength(thread)).toBe(MAX_ID_BYTES);
    const at = encodeURIComponent(thread);
    const started = await served.request(
      `/workflows/${workflow}?thread_id=${at}`,
      postJson({ amount: 3 }),
    );
    expect(started.status).toBe(200);
    expect(await started.json()).toMatchObject({ type: 'interrupt', thread_id: thread });
    const listed = await served.request(`/runs?session_id=${at}`);
    expect(((await listed.json()) as { runs: unknown[] }).runs).toHaveLength(1);
    const answered = await served.request(
      `/workflows/${workflow}/${at}/resume`,
      postJson({ value: { approved: true } }),
    );
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ amount: 3, approved: true });
  });
});
