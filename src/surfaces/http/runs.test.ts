/**
 * Beyond 1.2.1: reading runs and following their events, including a client that loses
 * its connection mid-turn and reconnects with Last-Event-ID.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { headersOf, parseSse, postJson, SSE_HEADERS } from '../../../test/support/http.js';
import { approval, threeSteps } from '../../../test/support/workflows.js';
import type { ReadOptions, RunSummary } from '../../core/store.js';
import { Agent, type Event, toWire } from '../../index.js';
import { MemoryEventStore } from '../../stores/memory/index.js';
import { SqliteEventStore } from '../../stores/sqlite/events.js';
import { ScriptedModel } from '../../testing/index.js';

async function deckWith(steps: ConstructorParameters<typeof ScriptedModel>[0]) {
  const eventStore = new MemoryEventStore();
  const model = new ScriptedModel(steps);
  const { deck } = await openTestDeck({
    agents: [new Agent({ name: 'Greeter', model })],
    workflows: [threeSteps()],
    eventStore,
  });
  return { deck, eventStore, app: deck.app() };
}

describe('GET /runs/{run_id}', () => {
  it("answers the run's status, origin, session, timestamps and usage; 404 for an unknown run", async () => {
    const { app, eventStore } = await deckWith([
      { text: 'hi', usage: { inputTokens: 22, outputTokens: 10 } },
    ]);
    await app.request('/agents/Greeter/chat', postJson({ session_id: 's-1', message: 'hello' }));
    const [run] = await eventStore.listRuns();
    const response = await app.request(`/runs/${run?.runId}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      run_id: run?.runId,
      origin: 'Greeter',
      session_id: 's-1',
      namespace: null,
      status: 'completed',
      started_at: run?.startedAt,
      updated_at: run?.updatedAt,
      last_seq: run?.lastSeq,
      usage: { requests: 1, input_tokens: 22, output_tokens: 10, total_tokens: 32, usd: null },
    });
    const unknown = await app.request('/runs/nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "No run 'nope'." });
  });
});

describe('GET /runs', () => {
  it('lists runs newest first, filtered, paged with next_before until null', async () => {
    const { app, deck } = await deckWith([]);
    for (let n = 0; n < 7; n++) {
      await deck.run('three-steps', { n }, { sessionId: n % 2 === 0 ? 'even' : 'odd' });
      await new Promise((r) => setTimeout(r, 2));
    }
    const all = (await (await app.request('/runs?limit=100')).json()) as {
      runs: Array<{ run_id: string; started_at: string; session_id: string }>;
      next_before: string | null;
    };
    expect(all.runs).toHaveLength(7);
    expect(all.next_before).toBeNull();
    const starts = all.runs.map((r) => r.started_at);
    expect(starts).toEqual([...starts].sort().reverse());

    const seen: string[] = [];
    let url: string | null = '/runs?limit=3';
    while (url) {
      const page = (await (await app.request(url)).json()) as typeof all;
      expect(page.runs.length).toBeLessThanOrEqual(3);
      seen.push(...page.runs.map((r) => r.run_id));
      url = page.next_before
        ? `/runs?limit=3&before=${encodeURIComponent(page.next_before)}`
        : null;
    }
    expect(seen).toEqual(all.runs.map((r) => r.run_id));

    const even = (await (
      await app.request('/runs?session_id=even&origin=three-steps&status=completed')
    ).json()) as typeof all;
    expect(even.runs.map((r) => r.session_id)).toEqual(['even', 'even', 'even', 'even']);
    expect((await (await app.request('/runs?status=failed')).json()) as typeof all).toEqual({
      runs: [],
      next_before: null,
      next: null,
    });
  });

  it('pages exactly with after and next, one run a page even within a millisecond', async () => {
    const { app, eventStore } = await deckWith([]);
    const ids = ['r-1', 'r-2', 'r-3', 'r-4', 'r-5'];
    await eventStore.append(
      ids.map((runId) => ({
        kind: 'run.started' as const,
        runId,
        sessionId: null,
        namespace: null,
        origin: 'three-steps',
        payload: { invocableType: 'workflow' as const, input: [] },
      })),
    );
    // The first page (no cursor) reads the millisecond's group whole, as `next_before` needs;
    // a cursor inside the group (the newest run's) pages it exactly from there.
    const first = (await (await app.request('/runs?limit=1&status=running')).json()) as {
      runs: Array<{ run_id: string; started_at: string }>;
    };
    const newest = first.runs[0] as { run_id: string; started_at: string };
    expect(newest.run_id).toBe('r-5');
    const cursor = Buffer.from(JSON.stringify([newest.started_at, 'r-5'])).toString('base64url');
    const seen: string[] = ['r-5'];
    let url: string | null = `/runs?limit=1&status=running&after=${cursor}`;
    while (url) {
      const page = (await (await app.request(url)).json()) as {
        runs: Array<{ run_id: string }>;
        next_before: string | null;
        next: string | null;
      };
      expect(page.runs).toHaveLength(1);
      seen.push(...page.runs.map((r) => r.run_id));
      url = page.next
        ? `/runs?limit=1&status=running&after=${encodeURIComponent(page.next)}`
        : null;
    }
    expect(seen).toEqual([...ids].reverse());
    const bad = await app.request('/runs?after=nope');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/^query parameter 'after'/);
  });

  it('never skips runs that started in the same millisecond, whatever the page size', async () => {
    const { app, eventStore } = await deckWith([]);
    const ids = ['r-1', 'r-2', 'r-3', 'r-4'];
    await eventStore.append(
      ids.map((runId) => ({
        kind: 'run.started' as const,
        runId,
        sessionId: null,
        namespace: null,
        origin: 'three-steps',
        payload: { invocableType: 'workflow' as const, input: [] },
      })),
    );
    const starts = new Set((await eventStore.listRuns()).map((r) => r.startedAt));
    const seen: string[] = [];
    let url: string | null = '/runs?limit=1';
    while (url) {
      const page = (await (await app.request(url)).json()) as {
        runs: Array<{ run_id: string }>;
        next_before: string | null;
      };
      seen.push(...page.runs.map((r) => r.run_id));
      url = page.next_before
        ? `/runs?limit=1&before=${encodeURIComponent(page.next_before)}`
        : null;
    }
    expect(seen.sort()).toEqual(ids);
    expect(starts.size).toBeLessThan(ids.length); // some did share a millisecond
  });

  it('answers 422 for a malformed query', async () => {
    const { app } = await deckWith([]);
    for (const query of ['limit=0', 'limit=abc', 'status=sleepy']) {
      const response = await app.request(`/runs?${query}`);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/^query parameter '/);
    }
  });
});

describe('GET /runs/{run_id}/events', () => {
  it('streams the canonical events with id: <seq>; Last-Event-ID and ?after= resume after that seq', async () => {
    const { app, eventStore } = await deckWith([{ text: ['a', 'b', 'c'] }]);
    await app.request('/agents/Greeter/chat', postJson({ session_id: 's', message: 'x' }));
    const [run] = await eventStore.listRuns();
    const logged = (await eventStore.read(run?.runId ?? '')).map((e) => toWire(e));
    const response = await app.request(`/runs/${run?.runId}/events`);
    expect(headersOf(response)).toEqual(SSE_HEADERS);
    expect(parseSse(await response.text())).toEqual(
      logged.map((e) => ({ id: String(e.seq), data: JSON.parse(JSON.stringify(e)) })),
    );
    const afterHeader = await app.request(`/runs/${run?.runId}/events`, {
      headers: { 'last-event-id': '2' },
    });
    expect(parseSse(await afterHeader.text()).map((f) => f.id)).toEqual(
      logged.slice(3).map((e) => String(e.seq)),
    );
    const afterQuery = await app.request(`/runs/${run?.runId}/events?after=4`);
    expect(parseSse(await afterQuery.text()).map((f) => f.id)).toEqual(
      logged.slice(5).map((e) => String(e.seq)),
    );
    expect((await app.request('/runs/nope/events')).status).toBe(404);
    expect(
      (await app.request(`/runs/${run?.runId}/events`, { headers: { 'last-event-id': 'x' } }))
        .status,
    ).toBe(422);
    // An empty header is no position; one at the terminal event ends at once (nothing follows).
    const empty = await app.request(`/runs/${run?.runId}/events`, {
      headers: { 'last-event-id': '' },
    });
    expect(parseSse(await empty.text())[0]?.id).toBe('0');
    const last = logged.at(-1)?.seq ?? 0;
    const done = await app.request(`/runs/${run?.runId}/events`, {
      headers: { 'last-event-id': String(last) },
    });
    expect(await done.text()).toBe('');
  });

  it('follows a live run; a client that drops mid-turn reconnects with Last-Event-ID and misses nothing', async () => {
    // Long enough (about a second) to still be running after four frames on a loaded machine.
    const chunks = Array.from({ length: 30 }, (_, i) => `t${i} `);
    const { app, eventStore } = await deckWith([{ text: chunks, delayMs: 30 }]);
    // A streamed chat (a JSON one asks the model for the whole reply, so it has no deltas to follow).
    const turn = Promise.resolve(
      app.request('/agents/Greeter/chat?stream=true', postJson({ session_id: 's', message: 'x' })),
    ).then((response) => response.text());
    let runId: string | undefined;
    while (!runId) {
      runId = (await eventStore.listRuns())[0]?.runId;
      await new Promise((r) => setTimeout(r, 2));
    }
    // First connection: read a few frames, then drop it mid-turn.
    const first = await app.request(`/runs/${runId}/events`);
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/\n\n/g) ?? []).length < 4) {
      const { value } = await reader.read();
      text += decoder.decode(value);
    }
    await reader.cancel();
    const before = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
    const lastId = before.at(-1)?.id ?? '';
    expect(Number(lastId)).toBeGreaterThanOrEqual(3);
    expect(await eventStore.getRun(runId)).toMatchObject({ status: 'running' });

    // Reconnect: the rest, live, until the terminal event.
    const second = await app.request(`/runs/${runId}/events`, {
      headers: { 'last-event-id': lastId },
    });
    const after = parseSse(await second.text());
    await turn;
    const ids = [...before, ...after].map((f) => Number(f.id));
    const logged = await eventStore.read(runId);
    expect(ids).toEqual(logged.map((e) => e.seq));
    expect(after.at(-1)?.data).toMatchObject({ kind: 'run.completed' });
  });
});

/** The SQLite default, counting the reads a tail makes. */
class CountingStore extends SqliteEventStore {
  reads = 0;
  override async read(runId: string, options?: ReadOptions): Promise<Event[]> {
    this.reads += 1;
    return super.read(runId, options);
  }
  override async getRun(runId: string): Promise<RunSummary | null> {
    this.reads += 1;
    return super.getRun(runId);
  }
}

/** Read `reader` until `done(text)` holds or the stream ends; the text read. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe('GET /runs/{run_id}/events of a run waiting for an answer', () => {
  const FOLLOWERS = 40;

  it('reads nothing while the run waits; the followers share their reads of the answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-idle-tail-'));
    const eventStore = new CountingStore({ path: join(dir, 'state.db') });
    const { deck } = await openTestDeck({ workflows: [approval()], eventStore });
    const app = deck.app();
    try {
      const started = await app.request('/workflows/approval?thread_id=t', postJson({ amount: 3 }));
      const runId = started.headers.get('x-run-id');
      expect(await started.json()).toMatchObject({ type: 'interrupt' });
      const readers = await Promise.all(
        Array.from({ length: FOLLOWERS }, async () => {
          const response = await app.request(`/runs/${runId}/events`);
          return (response.body as ReadableStream<Uint8Array>).getReader();
        }),
      );
      for (const reader of readers) {
        expect(await readUntil(reader, (text) => text.includes('run.interrupted'))).toContain(
          '"kind":"run.started"',
        );
      }
      // An idle window: a tail that polled read the store 5 times each in it (10, 20, 40, 80, 160 ms).
      const reads = eventStore.reads;
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(eventStore.reads - reads).toBe(0);

      const beforeAnswer = eventStore.reads;
      const answered = await app.request(
        `/runs/${runId}/answer`,
        postJson({ value: { approved: true } }),
      );
      expect(answered.status).toBe(200);
      const rests = await Promise.all(
        readers.map((reader) => readUntil(reader, (text) => text.includes('run.completed'))),
      );
      // Woken together, the followers read together: fewer reads than followers (one each before).
      expect(eventStore.reads - beforeAnswer).toBeLessThan(FOLLOWERS);
      const logged = await eventStore.read(runId ?? '');
      const answerEvents = logged
        .slice(logged.findIndex((event) => event.kind === 'run.interrupted') + 1)
        .map((event) => String(event.seq));
      for (const rest of rests) {
        expect(parseSse(rest).map((frame) => frame.id)).toEqual(answerEvents);
      }
      expect(rests[0]).toContain('"kind":"run.resumed"');
    } finally {
      await deck.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
