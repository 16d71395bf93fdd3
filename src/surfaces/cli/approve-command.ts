/**
 * `agentdeck runs approve|reject <run_id>` (also `service runs ...`): answer an agent's tool
 * call held for a person's approval. It opens the project's deck (the tool and the model
 * run here, as the turn goes on: no server is needed) on the shared stores, answers the run
 * like `deck.answer(runId, { approved, reason })`, and prints what the run did next: the
 * turn's answer, or the next call waiting.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import { isInterrupt } from '../../core/interrupt-result.js';
import { Deck } from '../../deck/deck.js';

const USAGE = (program: string) => `Usage: ${program} runs approve <run_id> [--project DIR] [--json]
       ${program} runs reject <run_id> [--reason TEXT] [--project DIR] [--json]

Answer the tool call run <run_id> holds for a person's approval (listed by GET /pending and
deck.pending()). approve runs the call and the turn goes on; reject does not run it and tells
the model why (--reason). The turn continues in this process, on the stores SERVICE_EVENTS and
SERVICE_SESSIONS name, with the project's agents (--project, default ./.agentdeck) and the
model settings of this environment (OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL).`;

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  let options: Parsed;
  try {
    options = parse(argv);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${USAGE(program)}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE(program));
    return 0;
  }
  const { runId, approved } = options;
  try {
    const project = options.project ?? '.agentdeck';
    if (!existsSync(project)) {
      throw new Error(
        `no project directory '${project}'; the answered turn goes on with the project's agent, pass --project with its path`,
      );
    }
    await using deck = await Deck.fromProject(project);
    // No background work: this command plays the one run it answers, nothing else.
    await deck.open({ background: false });
    const held = (await deck.pending()).find((item) => item.runId === runId);
    if (held?.reason !== 'approval') {
      const status = await deck.status(runId);
      throw new Error(
        status === null
          ? `no run '${runId}' in the event store; list what waits with: ${program} runs ls --status waiting_human`
          : held
            ? `run '${runId}' waits for an answer to a workflow's question, not a tool approval; answer it with POST /runs/${runId}/answer`
            : `run '${runId}' does not wait for an approval (its status is ${status}); nothing was changed`,
      );
    }
    const call = held.payload as { tool?: string; call_id?: string };
    const result = await deck.answer(runId, { approved, reason: options.reason ?? null });
    const status = await deck.status(runId);
    const next = isInterrupt(result)
      ? (result.payload as { tool?: string; call_id?: string })
      : null;
    const output = next ? null : ((result as { output?: unknown }).output ?? null);
    if (options.json) {
      console.log(JSON.stringify({ run_id: runId, status, output, pending: next }, null, 2));
      return 0;
    }
    const verb = approved ? 'approved' : 'rejected';
    console.log(`${verb} tool '${call.tool}' (call ${call.call_id}) of run ${runId}`);
    console.log(
      next
        ? `the run waits again: approve or reject tool '${next.tool}' (call ${next.call_id})`
        : `the run is ${status}${output === null ? '' : `: ${typeof output === 'string' ? output : JSON.stringify(output)}`}`,
    );
    return 0;
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  }
}

interface Parsed {
  help: boolean;
  runId: string;
  approved: boolean;
  reason: string | undefined;
  project: string | undefined;
  json: boolean;
}

function parse(argv: readonly string[]): Parsed {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      reason: { type: 'string' },
      project: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, runId, ...rest] = positionals;
  const approved = action === 'approve';
  if (values.help) {
    return { help: true, runId: '', approved, reason: undefined, project: undefined, json: false };
  }
  if (group !== 'runs' || (action !== 'approve' && action !== 'reject')) {
    throw new Error(`unexpected arguments '${positionals.join(' ')}'`);
  }
  if (!runId) throw new Error(`${action} needs a run id`);
  if (rest.length > 0) throw new Error(`unexpected arguments '${rest.join(' ')}'`);
  if (approved && values.reason !== undefined) {
    throw new Error('--reason goes with reject: an approval needs none');
  }
  return {
    help: false,
    runId,
    approved,
    reason: values.reason,
    project: values.project,
    json: values.json ?? false,
  };
}
