/**
 * Event rows as the SQL stores wrote them before compact rows (schema version 4, every
 * envelope column on every row), for the tests that migrate them: envelopes that differ
 * from their run's, an older `v`, a kind this reader does not know, timestamps that are not
 * `toISOString()` text, and a run with no `runs` row.
 */
const STARTED = '{"invocable_type":"agent","input":[{"type":"text","text":"hi"}]}';
const DELTA = '{"message_id":"m1","text":" tok"}';
const DONE = '{"output":[],"usage":null}';

/** [run, seq, v, kind, session, namespace, origin, ts, payload] */
export type OldEventRow = [
  string,
  number,
  number,
  string,
  string | null,
  string | null,
  string,
  string,
  string,
];

export const OLD_EVENT_ROWS: OldEventRow[] = [
  ['run-a', 0, 3, 'run.started', 's1', null, 'helper', '2025-03-01T10:00:00.000Z', STARTED],
  ['run-a', 1, 3, 'text.delta', 's1', null, 'helper', '2025-03-01T10:00:00.999Z', DELTA],
  ['run-a', 2, 3, 'text.delta', 's2', 'ns', 'helper', '2025-03-01T10:00:01.001Z', DELTA],
  ['run-a', 3, 2, 'text.delta', 's1', null, 'other', '2025-03-01T10:00:01Z', DELTA],
  ['run-a', 4, 3, 'x.future', 's1', null, 'helper', '2025-03-01T10:00:02.5Z', '{"a":1}'],
  ['run-a', 5, 3, 'text.delta', 's1', null, 'helper', '1969-12-31T23:59:59.999Z', DELTA],
  ['run-a', 6, 3, 'text.delta', 's1', null, 'helper', '9999-12-31T23:59:59.999Z', DELTA],
  ['run-b', 0, 3, 'run.started', null, null, 'wf', '2025-03-01T10:00:00.000Z', STARTED],
  ['run-b', 1, 3, 'run.completed', null, null, 'wf', '2025-03-01T10:00:00.123Z', DONE],
  ['run-orphan', 0, 3, 'run.started', 's9', 'n9', 'o9', '2025-03-01T10:00:00.000Z', STARTED],
];

/** The `runs` rows: [run, origin, session, status, last_seq, updated_at, ended_at]. */
export const OLD_RUN_ROWS: Array<
  [string, string, string | null, string, number, string, string | null]
> = [
  ['run-a', 'helper', 's1', 'running', 6, '9999-12-31T23:59:59.999Z', null],
  ['run-b', 'wf', null, 'completed', 1, '2025-03-01T10:00:00.123Z', '2025-03-01T10:00:00.123Z'],
];

export const OLD_RUN_IDS = ['run-a', 'run-b', 'run-orphan'];
