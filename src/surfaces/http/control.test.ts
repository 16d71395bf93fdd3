/**
 * Run control over HTTP (WIRE.md): pause and cancel record a request, resume continues a
 * paused run or answers 409. Safe points that act on requests are issue 7.
 */
import { describe, expect, it } from 'vitest';
import { openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { approval, reminder, threeSteps } from '../../../test/support/workflows.js';
import { MemoryEventStore } from '../../stores/memory/index.js';

async function waitingRun() {
  const eventStore = new MemoryEventStore();
  const { deck } = await openTestDeck({ workflows: [approval(), threeSteps()], eventStore });
  const app = deck.app();
  await app.request('/workflows/approval?thread_id=t-1', postJson({ amount: 5 }));
  const [run] = await eventStore.listRuns();
  return { deck, app, eventStore, runId: run?.runId ?? '' };
}

describe('POST /runs/{run_id}/pause and /cancel', () => {
  it('records a pause in the log and the store; a run waiting for an answer stays answerable', async () => {
    const { app, deck, eventStore, runId } = await waitingRun();
    const response = await app.request(`/runs/${runId}/pause`, postJson({ reason: 'lunch' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ run_id: runId, verb: 'pause', recorded: true });

    const requests = await eventStore.readControl(runId);
    expect(requests.map((r) => [r.verb, r.reason])).toEqual([['pause', 'lunch']]);
    const events = (await eventStore.read(runId)).filter((e) => e.kind === 'control.requested');
    expect(events.map((e) => e.payload)).toEqual(
      requests.map((r) => ({ verb: r.verb, reason: r.reason, requestId: r.requestId })),
    );
    expect(await deck.status(runId)).toBe('waiting_human');
    // Still listed and answerable: a request after run.interrupted does not hide it.
    expect((await deck.pending()).map((p) => p.runId)).toEqual([runId]);
    const answered = await app.request(
      '/workflows/approval/t-1/resume',
      postJson({ value: { approved: true } }),
    );
    expect(answered.status).toBe(200);
  });

  it('ends a run waiting for an answer on cancel, and frees its thread', async () => {
    const { app, deck, eventStore, runId } = await waitingRun();
    const cancel = await app.request(
      `/runs/${runId}/cancel`,
      postJson({ reason: 'no longer needed' }),
    );
    expect(await cancel.json()).toEqual({ run_id: runId, verb: 'cancel', recorded: true });
    const [request] = await eventStore.readControl(runId);
    const tail = (await eventStore.read(runId)).slice(-3);
    expect(tail.map((e) => [e.kind, e.payload])).toEqual([
      [
        'control.requested',
        { verb: 'cancel', reason: 'no longer needed', requestId: request?.requestId },
      ],
      ['control.observed', { verb: 'cancel', requestId: request?.requestId }],
      ['run.cancelled', { reason: 'no longer needed' }],
    ]);
    expect(await deck.status(runId)).toBe('cancelled');
    expect(await deck.pending()).toEqual([]);
    // The thread is free: a new run on it starts at once (no 409).
    const again = await app.request('/workflows/approval?thread_id=t-1', postJson({ amount: 5 }));
    expect(again.status).toBe(200);
  });

  it('records a request on a finished run without an event after its terminal one', async () => {
    const { deck, eventStore } = await waitingRun();
    await deck.run('three-steps', { n: 1 });
    const done = (await eventStore.listRuns({ origin: 'three-steps' }))[0]?.runId ?? '';
    const before = await eventStore.read(done);
    const response = await deck.app().request(`/runs/${done}/cancel`, postJson({}));
    expect(response.status).toBe(200);
    expect(await eventStore.read(done)).toEqual(before);
    expect(await eventStore.readControl(done)).toHaveLength(1);
  });

  it('answers 404 for an unknown run and 422 for a malformed reason', async () => {
    const { app, runId } = await waitingRun();
    const unknown = await app.request('/runs/nope/pause', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      detail: "no run 'nope' in the event log; nothing to pause",
    });
    const bad = await app.request(`/runs/${runId}/pause`, postJson({ reason: 5 }));
    expect(bad.status).toBe(422);
  });
});

describe('POST /runs/{run_id}/resume', () => {
  it("answers 409 run '<id>' is not paused when there is nothing to resume", async () => {
    const { app, runId } = await waitingRun();
    for (const id of [runId, 'never-ran']) {
      const response = await app.request(`/runs/${id}/resume`, { method: 'POST' });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ detail: `run '${id}' is not paused` });
    }
  });

  it('continues a paused (sleeping) workflow whose time has come: its status and event count', async () => {
    const eventStore = new MemoryEventStore();
    const { deck } = await openTestDeck({ workflows: [reminder()], eventStore });
    const app = deck.app();
    await app.request(
      '/workflows/reminder?thread_id=late',
      postJson({ due: '2026-03-01T09:00:00Z' }),
    );
    await app.request(
      '/workflows/reminder?thread_id=later',
      postJson({ due: '2999-01-01T00:00:00Z' }),
    );
    const [future, past] = await eventStore.listRuns();
    expect([past?.status, future?.status]).toEqual(['paused', 'paused']);

    const notDue = await app.request(`/runs/${future?.runId}/resume`, { method: 'POST' });
    expect(notDue.status).toBe(409);
    const response = await app.request(`/runs/${past?.runId}/resume`, { method: 'POST' });
    expect(response.status).toBe(200);
    const events = await eventStore.read(past?.runId ?? '');
    const continued = events.slice(events.findIndex((e) => e.kind === 'run.resumed'));
    expect(await response.json()).toEqual({
      run_id: past?.runId,
      status: 'completed',
      events: continued.length,
    });
    expect(continued.map((e) => e.kind)).toEqual([
      'run.resumed',
      'node.updated',
      'node.updated',
      'run.completed',
    ]);
    expect(await deck.status(future?.runId ?? '')).toBe('paused');
  });
});
