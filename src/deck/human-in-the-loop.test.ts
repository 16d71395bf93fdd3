/**
 * Interrupts, answers and timers through the Deck, on the in-process checkpointer and on
 * the SQLite default (Postgres: workflow-postgres.int.test.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWorkflowCheckpointing } from '../../test/support/workflow-suites.js';

describeWorkflowCheckpointing('memory', () => 'memory://');
describeWorkflowCheckpointing(
  'SQLite',
  () => `sqlite://${join(mkdtempSync(join(tmpdir(), 'agentdeck-hitl-')), 'state.db')}`,
);
