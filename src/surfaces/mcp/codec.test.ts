/**
 * The MCP codec on the frozen event corpus: every event of `test/fixtures/events/v3/` is
 * mapped to what `/mcp` says of it (the progress message; for an event that ends a run's
 * segment, the result of an agent's tool and of a workflow's tool), and compared with the
 * golden files of `test/fixtures/golden/mcp/`, one per corpus file. A new event kind, or a
 * change of what a client sees, shows here. Regenerate after a deliberate change with
 * `UPDATE_GOLDEN=1 npx vitest run src/surfaces/mcp/codec.test.ts`, and read the diff.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_FILES,
  corpusEvents,
  expectGolden,
  goldenDir,
  goldenFiles,
  goldenJson,
} from '../../../test/support/golden.js';
import { isEnd } from '../http/run-results.js';
import {
  agentResult,
  errorResult,
  progressMessage,
  runningResult,
  workflowResult,
} from './codec.js';

const golden = goldenDir('mcp');

/** What `/mcp` says of each event of a corpus file. */
function encoded(file: string): unknown[] {
  return corpusEvents(file).map((event) => {
    const said: Record<string, unknown> = {
      kind: event.kind,
      seq: event.seq,
      progress: progressMessage(event),
    };
    if (isEnd(event)) {
      said.agent_result = agentResult(event);
      said.workflow_result = workflowResult(event);
    }
    return said;
  });
}

describe('the MCP codec on the v3 corpus', () => {
  const files = CORPUS_FILES;

  for (const file of files) {
    it(`maps ${file} as its golden file says`, () => {
      const path = join(golden, file.replace(/\.jsonl$/, '.json'));
      expectGolden(path, goldenJson(encoded(file)), 'src/surfaces/mcp/codec.test.ts');
    });
  }

  it('has a golden file for every corpus file and no other', () => {
    const goldens = goldenFiles(golden).map((f) => f.replace(/\.json$/, '.jsonl'));
    expect(goldens.sort()).toEqual([...files].sort());
  });

  it('gives every result structuredContent and text, a failure isError', () => {
    for (const file of ['run.completed', 'run.failed', 'run.interrupted', 'run.paused']) {
      for (const said of encoded(`${file}.jsonl`) as Record<string, Record<string, unknown>>[]) {
        for (const result of [said.agent_result, said.workflow_result]) {
          expect(result?.structuredContent).toMatchObject({ run_id: 'run-fixture-1' });
          expect((result?.content as { text: string }[] | undefined)?.[0]?.text).not.toBe('');
          expect(result?.isError === true).toBe(file === 'run.failed');
        }
      }
    }
    expect(runningResult('r-1')).toEqual({
      content: [
        {
          type: 'text',
          text: 'Run r-1 is still running; follow it with get_run {"run_id": "r-1"}.',
        },
      ],
      structuredContent: { status: 'running', run_id: 'r-1' },
    });
    expect(errorResult('bad')).toMatchObject({
      isError: true,
      structuredContent: { error: 'bad' },
    });
  });
});
