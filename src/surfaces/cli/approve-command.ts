/**
 * `agentdeck runs approve|reject <run_id>` (also `service runs ...`): answer an agent's tool
 * call held for a person's approval. It opens the project's deck (the tool and the model
 * run here, as the turn goes on: no server is needed) on the shared stores, answers the run
 * like `deck.answer(runId, { approved, reason })`, and prints what the run did next: the
 * turn's answer, or the next call waiting.
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import { isInterrupt } from '../../core/interrupt-result.js';
import { parseEventStoreUrl } from '../../stores/events-url.js';
import { parseSessionUrl } from '../../stores/sessions-url.js';
import { openProjectDeck } from './project-deck.js';

const USAGE = (
  program: string,
) => `Usage: ${program} runs approve <run_id> [--url URL | --project DIR] [--json]
       ${program} runs reject <run_id> [--reason TEXT] [--url URL | --project DIR] [--json]

Answer the tool call run <run_id> holds for a person's approval (listed by GET /pending and
deck.pending()). approve runs the call and the turn goes on; reject does not run it and tells
the model why (--reason). When the tool declares the reason's shape (its approvalReason, the
item's answer_schema), --reason is read as JSON if it parses (else as text) and must match it:
a reason that does not is refused, naming the field, and the call still waits.

With --url (a server, e.g. http://localhost:8000), the server that serves the agent plays the
rest of the turn (AGENTDECK_API_KEY is sent as its bearer key when set). Without it, the turn
goes on in this process, on the stores SERVICE_EVENTS and SERVICE_SESSION name, with the
project's agents (--project, else ./.agentdeck when it holds one, else the project agentdeck
serve serves on this event store) and this environment's model settings
(OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL); a run with a conversation then needs the
conversations where both reach them: the events' SQLite file (the default), or a Redis
(SERVICE_SESSION) shared with the server, or the turn would be lost from it.`;

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
    if (options.url !== undefined) return await answerOverHttp(options);
    // The answered turn goes on with the project's agent. No background work: this command
    // plays the one run it answers, nothing else; the MCP servers start only if it uses one.
    await using project = await openProjectDeck({ project: options.project, program });
    const { deck } = project;
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
    if (held.sessionId !== null && sessionsInMemory()) {
      throw new Error(
        `run '${runId}' belongs to conversation '${held.sessionId}', which lives in the memory of the server that played it (its events are not in an SQLite file, or SERVICE_SESSION is memory://): answer it on that server, with --url http://<host>:<port>, or share SERVICE_SESSION (redis://...) between the server and this command`,
      );
    }
    const call = held.payload as { tool?: string; call_id?: string };
    const result = await deck.answer(runId, {
      approved,
      reason: reasonOf(options.reason, held.answerSchema),
      call_id: call.call_id ?? null,
    });
    const status = await deck.status(runId);
    const next = isInterrupt(result)
      ? (result.payload as { tool?: string; call_id?: string })
      : null;
    const output = next ? null : ((result as { output?: unknown }).output ?? null);
    if (options.json) {
      console.log(JSON.stringify({ run_id: runId, status, output, pending: next }, null, 2));
      return 0;
    }
    printOutcome(options, call, next, status ?? '', output);
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
  url: string | undefined;
  json: boolean;
}

/** Answer through a server's `GET /pending` and `POST /runs/{run_id}/answer`. */
async function answerOverHttp(options: Parsed): Promise<number> {
  const base = (options.url ?? '').replace(/\/+$/, '');
  const key = process.env.AGENTDECK_API_KEY;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, headers });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      throw new Error(`${response.status} from ${base}${path}: ${String(body.detail ?? '')}`);
    }
    return body;
  };
  const inbox = (await call('/pending')) as {
    items?: { run_id: string; reason: string; payload: unknown; answer_schema?: unknown }[];
  };
  const held = inbox.items?.find((item) => item.run_id === options.runId);
  if (held?.reason !== 'approval') {
    throw new Error(
      `run '${options.runId}' does not wait for an approval on ${base}; list what waits with: curl ${base}/pending`,
    );
  }
  const asked = held.payload as { tool?: string; call_id?: string };
  const value = {
    approved: options.approved,
    reason: reasonOf(options.reason, held.answer_schema),
    call_id: asked.call_id,
  };
  const answered = (await call(`/runs/${encodeURIComponent(options.runId)}/answer`, {
    method: 'POST',
    body: JSON.stringify({ value }),
  })) as {
    status?: string;
    result?: { output?: unknown } | null;
    pending?: { payload?: unknown } | null;
  };
  const next = (answered.pending?.payload ?? null) as { tool?: string; call_id?: string } | null;
  const output = answered.result?.output ?? null;
  if (options.json) {
    console.log(
      JSON.stringify(
        { run_id: options.runId, status: answered.status, output, pending: next },
        null,
        2,
      ),
    );
    return 0;
  }
  printOutcome(options, asked, next, answered.status ?? '', output);
  return 0;
}

/**
 * The reason to send: with a reason schema that is not text, `--reason` as JSON when it parses
 * (an object, a number), else as the text typed; without one, the text.
 */
function reasonOf(typed: string | undefined, schema: unknown): unknown {
  if (typed === undefined) return null;
  if (schema === undefined || (schema as { type?: unknown }).type === 'string') return typed;
  try {
    return JSON.parse(typed);
  } catch {
    return typed;
  }
}

function printOutcome(
  options: Parsed,
  call: { tool?: string; call_id?: string },
  next: { tool?: string; call_id?: string } | null,
  status: string,
  output: unknown,
): void {
  const verb = options.approved ? 'approved' : 'rejected';
  console.log(`${verb} tool '${call.tool}' (call ${call.call_id}) of run ${options.runId}`);
  console.log(
    next
      ? `the run waits again: approve or reject tool '${next.tool}' (call ${next.call_id})`
      : `the run is ${status}${output === null ? '' : `: ${typeof output === 'string' ? output : JSON.stringify(output)}`}`,
  );
}

function parse(argv: readonly string[]): Parsed {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      reason: { type: 'string' },
      project: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, runId, ...rest] = positionals;
  const approved = action === 'approve';
  if (values.help) {
    return {
      help: true,
      runId: '',
      approved,
      reason: undefined,
      project: undefined,
      url: undefined,
      json: false,
    };
  }
  if (group !== 'runs' || (action !== 'approve' && action !== 'reject')) {
    throw new Error(`unexpected arguments '${positionals.join(' ')}'`);
  }
  if (!runId) throw new Error(`${action} needs a run id`);
  if (rest.length > 0) throw new Error(`unexpected arguments '${rest.join(' ')}'`);
  if (values.url !== undefined && values.project !== undefined) {
    throw new Error('--url and --project exclude each other: the server at --url has its project');
  }
  if (approved && values.reason !== undefined) {
    throw new Error('--reason goes with reject: an approval needs none');
  }
  return {
    help: false,
    runId,
    approved,
    reason: values.reason,
    project: values.project,
    url: values.url,
    json: values.json ?? false,
  };
}

/** Whether this process's deck keeps conversations in its own memory, where a server's are not. */
function sessionsInMemory(): boolean {
  const events = parseEventStoreUrl(process.env.SERVICE_EVENTS);
  return parseSessionUrl(process.env.SERVICE_SESSION, events).backend === 'memory';
}
