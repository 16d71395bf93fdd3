/**
 * Interrupts, answers and timers on the official PostgresSaver, against the local
 * PostgreSQL (database `test`; `TEST_POSTGRES_URL` overrides).
 */
import { describeWorkflowCheckpointing } from '../../test/support/workflow-suites.js';

const url = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describeWorkflowCheckpointing('Postgres', () => url);
