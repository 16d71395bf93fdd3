/**
 * `agentdeck eval` (#41, docs/evals.md): datasets and experiments from the command line, for
 * a developer and for CI. `eval datasets ls|create` keeps datasets in the project's event
 * store (from recorded runs, `--from-runs`, and from a JSONL file, `--file`: one
 * `{"input", "reference"?}` per line); `eval run` plays an agent or a workflow of the project
 * over a dataset in this process, prints each scorer's mean and counts, and exits 1 when a
 * `--threshold scorer=min` is missed (0 otherwise; 2 for bad input).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { errorMessage, InvalidInputError, isDeckError } from '../../core/errors.js';
import type { ExperimentView } from '../http/served-evals.js';
import { openProjectDeck } from './project-deck.js';

const USAGE = (program: string) => `Usage:
  ${program} eval datasets ls [--project DIR] [--json]
  ${program} eval datasets create <name> [--from-runs ID,ID...] [--file ITEMS.jsonl] [--description TEXT] [--project DIR]
  ${program} eval run <dataset> (--agent NAME | --workflow NAME) [--model MODEL] [--instructions TEXT]
      [--scorer NAME]... [--threshold SCORER=MIN]... [--concurrency N] [--name NAME] [--project DIR] [--json]

Works on the project's deck (--project, else ./.agentdeck when it holds one) and the event
store SERVICE_EVENTS names. A JSONL file holds one {"input", "reference"?} per line.
eval run plays each item here, as an ordinary recorded run, scores it with the scorers named
(default: all the project's), prints each scorer's mean, passed and failed, and exits 1 when
a scorer's mean is under its --threshold, 0 otherwise (2 for bad input).`;

/** A usage mistake: exit 2. */
class UsageError extends Error {}

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${USAGE(program)}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    console.log(USAGE(program));
    return values.help ? 0 : 2;
  }
  try {
    const run = plan(positionals, values);
    await using project = await openProjectDeck({ project: values.project, program });
    return await run(project.deck.evals, program);
  } catch (error) {
    const usage = error instanceof UsageError;
    const bad =
      usage ||
      (isDeckError(error) && ['invalid_input', 'not_found', 'conflict'].includes(error.code));
    console.error(`${program}: ${errorMessage(error)}${usage ? `\n\n${USAGE(program)}` : ''}`);
    return bad ? 2 : 1;
  }
}

type Values = ReturnType<typeof parse>['values'];
type Evals = Awaited<ReturnType<typeof openProjectDeck>>['deck']['evals'];

/** What the arguments ask for, checked before the project opens. */
function plan(
  positionals: string[],
  values: Values,
): (evals: Evals, program: string) => Promise<number> {
  const [group, verb, name] = positionals;
  if (group === 'datasets' && verb === 'ls') {
    return async (evals) => {
      const datasets = await evals.listDatasets();
      if (values.json) console.log(JSON.stringify(datasets, null, 2));
      else if (datasets.length === 0) console.log('no datasets');
      else for (const d of datasets) console.log(`${d.name}  ${d.items} items  ${d.description}`);
      return 0;
    };
  }
  if (group === 'datasets' && verb === 'create') {
    if (!name) throw new UsageError('eval datasets create needs a dataset name');
    const items = values.file === undefined ? [] : readItems(values.file);
    const runs =
      values['from-runs']
        ?.split(',')
        .map((id) => id.trim())
        .filter(Boolean) ?? [];
    return async (evals) => {
      const made = await evals.createDataset({
        name,
        items,
        runs,
        ...(values.description !== undefined ? { description: values.description } : {}),
      });
      console.log(`dataset ${name}: ${made?.items ?? 0} items`);
      return 0;
    };
  }
  if (group === 'run') {
    const dataset = verb;
    if (!dataset) throw new UsageError('eval run needs a dataset name');
    if ((values.agent === undefined) === (values.workflow === undefined)) {
      throw new UsageError('eval run needs one of --agent NAME and --workflow NAME');
    }
    const thresholds = parseThresholds(values.threshold ?? []);
    const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
    const variant = {
      ...(values.model !== undefined ? { model: values.model } : {}),
      ...(values.instructions !== undefined ? { instructions: values.instructions } : {}),
    };
    const options = {
      dataset,
      ...(values.agent !== undefined
        ? { agent: values.agent }
        : { workflow: values.workflow as string }),
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(Object.keys(variant).length ? { variant } : {}),
      ...(values.scorer?.length ? { scorers: values.scorer } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
    };
    return async (evals) => {
      for (const scorer of thresholds.keys()) {
        const named = options.scorers ?? [...evals.scorers.keys()];
        if (!named.includes(scorer)) {
          throw new InvalidInputError(
            `--threshold ${scorer}: no such scorer in this experiment; name one of its scorers`,
          );
        }
      }
      const view = await evals.experiment(options);
      const missed = report(view, thresholds, values.json === true);
      return missed.length > 0 || view.status === 'failed' ? 1 : 0;
    };
  }
  throw new UsageError(`unknown eval command '${positionals.join(' ')}'`);
}

/** The items of a JSONL file; an InvalidInputError naming the first bad line. */
export function readItems(path: string): { input: unknown; reference?: unknown }[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${errorMessage(error)}`);
  }
  const items: { input: unknown; reference?: unknown }[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `${path} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InvalidInputError(`${where} is not JSON: ${errorMessage(error)}`);
    }
    if (
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value) ||
      !('input' in value)
    ) {
      throw new InvalidInputError(
        `${where} must be an object with an "input" (and optionally a "reference")`,
      );
    }
    items.push(value as { input: unknown; reference?: unknown });
  }
  return items;
}

function parseThresholds(given: readonly string[]): Map<string, number> {
  const thresholds = new Map<string, number>();
  for (const entry of given) {
    const match = /^([^=]+)=(.+)$/.exec(entry);
    const min = match ? Number(match[2]) : Number.NaN;
    if (!match || !Number.isFinite(min)) {
      throw new UsageError(`--threshold ${entry}: write it as SCORER=MIN, e.g. exact=0.9`);
    }
    thresholds.set(match[1] as string, min);
  }
  return thresholds;
}

/** Print the summary (a table, or JSON); the scorers whose mean missed their threshold. */
function report(
  view: ExperimentView,
  thresholds: ReadonlyMap<string, number>,
  json: boolean,
): string[] {
  const rows = view.scorers.map((name) => {
    const score = view.scores[name] ?? { mean: null, passed: 0, failed: 0 };
    const min = thresholds.get(name);
    const missed = min !== undefined && (score.mean === null || score.mean < min);
    return { name, ...score, threshold: min ?? null, missed };
  });
  const missed = rows.filter((r) => r.missed).map((r) => r.name);
  if (json) {
    const { results: _, ...summary } = view;
    console.log(JSON.stringify({ ...summary, thresholds: rows, missed }, null, 2));
    return missed;
  }
  console.log(
    `experiment ${view.id} (${view.name}) on ${view.dataset}: ${view.status}, ${view.done}/${view.items} items`,
  );
  const table = [['scorer', 'mean', 'passed', 'failed', 'threshold', '']].concat(
    rows.map((r) => [
      r.name,
      r.mean === null ? '-' : r.mean.toFixed(3),
      String(r.passed),
      String(r.failed),
      r.threshold === null ? '-' : String(r.threshold),
      r.threshold === null ? '' : r.missed ? 'MISSED' : 'ok',
    ]),
  );
  const widths =
    table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length))) ?? [];
  for (const row of table)
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  const cost = view.usd === null ? '' : `, $${view.usd.toFixed(4)}`;
  const latency = view.latencyMsP50 === null ? '' : `, p50 ${Math.round(view.latencyMsP50)} ms`;
  console.log(
    `runs: ${view.results.filter((r) => r.status === 'completed').length} completed${cost}${latency}`,
  );
  if (view.error) console.log(`experiment failed: ${view.error}`);
  return missed;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: argv.slice(1),
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      'from-runs': { type: 'string' },
      file: { type: 'string' },
      description: { type: 'string' },
      agent: { type: 'string' },
      workflow: { type: 'string' },
      model: { type: 'string' },
      instructions: { type: 'string' },
      scorer: { type: 'string', multiple: true },
      threshold: { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      name: { type: 'string' },
    },
  });
}
