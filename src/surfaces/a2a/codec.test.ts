/**
 * The A2A codec on the frozen event corpus: each `test/fixtures/events/v3/<kind>.jsonl`, folded
 * as one stream, is compared with its golden files in `test/fixtures/golden/a2a/`: the updates
 * as A2A's JSON (`StreamResponse`, one line each, after the seq of the event that gave it) in
 * `<kind>.jsonl`, and the task the events fold into (`Task`) in `<kind>.task.json`. A new event
 * kind shows up here as a missing golden file. Regenerate them with
 * `UPDATE_GOLDEN=1 npx vitest run src/surfaces/a2a/codec.test.ts` and read the diff. Every
 * update must survive the SDK's own JSON round trip, so it is a well-formed A2A object.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_FILES,
  corpusEvents,
  expectGolden,
  goldenDir,
} from '../../../test/support/golden.js';
import { TextBlock } from '../../core/blocks.js';
import type { Event } from '../../core/events.js';
import { encodeEvent, INITIAL_TASK_CODEC_STATE, type TaskUpdate } from './codec.js';
import { TaskFold } from './task-fold.js';

const GOLDEN = goldenDir('a2a');

function streamResponse(u: TaskUpdate): StreamResponse {
  return u.kind === 'statusUpdate'
    ? { payload: { $case: 'statusUpdate', value: u.data } }
    : { payload: { $case: 'artifactUpdate', value: u.data } };
}

/** The corpus file's updates, one JSON line each with the seq of its event. */
function encodeAll(events: readonly Event[]): { lines: string; responses: StreamResponse[] } {
  let state = INITIAL_TASK_CODEC_STATE;
  let lines = '';
  const responses: StreamResponse[] = [];
  for (const event of events) {
    const step = encodeEvent(state, event);
    state = step.state;
    for (const u of step.updates) {
      const response = streamResponse(u);
      responses.push(response);
      lines += `${JSON.stringify({ seq: event.seq, update: StreamResponse.toJSON(response) })}\n`;
    }
  }
  return { lines, responses };
}

function golden(name: string, actual: string): void {
  expectGolden(join(GOLDEN, name), actual, 'src/surfaces/a2a/codec.test.ts');
}

describe('the A2A codec on the frozen event corpus', () => {
  const files = CORPUS_FILES;

  it.each(files)('%s gives its golden updates and task', (file) => {
    const events = corpusEvents(file);
    const { lines, responses } = encodeAll(events);
    golden(file, lines);
    for (const response of responses) {
      const json = StreamResponse.toJSON(response);
      expect(StreamResponse.toJSON(StreamResponse.fromJSON(json))).toEqual(json);
    }
    const task = TaskFold.of(events)?.task();
    golden(
      file.replace(/\.jsonl$/, '.task.json'),
      `${JSON.stringify(task && Task.toJSON(task), null, 2)}\n`,
    );
  });

  it('has no golden file left over from a corpus file that is gone', () => {
    const kinds = new Set(files.map((file) => file.replace(/\.jsonl$/, '')));
    for (const name of readdirSync(GOLDEN)) {
      expect(kinds.has(name.replace(/(\.task\.json|\.jsonl)$/, '')), name).toBe(true);
    }
  });
});

describe('a run folded into its task', () => {
  const envelope = { v: 3, runId: 'r1', sessionId: 's1', namespace: null, origin: 'payer' };
  const at = (seq: number) => ({ ...envelope, seq, ts: `2026-11-27T10:00:00.00${seq}Z` });

  it('streams the answer into one artifact, replaced by the output, and ends completed', () => {
    const events: Event[] = [
      { ...at(0), kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
      { ...at(1), kind: 'text.delta', payload: { messageId: 'm', text: 'Tues' } },
      { ...at(2), kind: 'text.delta', payload: { messageId: 'm', text: 'day.' } },
    ];
    const fold = TaskFold.of(events);
    expect(fold?.task().artifacts.map((a) => a.parts.length)).toEqual([2]);
    fold?.apply({
      ...at(3),
      kind: 'run.completed',
      payload: { output: [new TextBlock('Tuesday.')], usage: null },
    });
    const task = fold?.task();
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task?.artifacts).toHaveLength(1);
    expect(task?.artifacts[0]?.parts.map((p) => p.content)).toEqual([
      { $case: 'text', value: 'Tuesday.' },
    ]);
  });

  it('shows a held tool call as input-required, the answer in the history, then working', () => {
    const fold = TaskFold.of([
      { ...at(0), kind: 'run.started', payload: { invocableType: 'agent', input: [] } },
      {
        ...at(1),
        kind: 'run.interrupted',
        payload: { payload: { tool: 'pay' }, threadId: 's1', reason: 'approval' },
      },
    ]);
    expect(fold?.task().status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    fold?.apply({
      ...at(2),
      kind: 'run.resumed',
      payload: { requestId: null, answer: { approved: false, reason: 'too much' } },
    });
    const task = fold?.task();
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task?.history.at(-1)?.parts[0]?.content).toEqual({
      $case: 'data',
      value: { approved: false, reason: 'too much' },
    });
  });
});
