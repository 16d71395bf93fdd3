/**
 * Catalog checks that need no engine and no file: definitions of the right kind, unique
 * names, and no agent and workflow sharing a name (they share one route namespace).
 */
import { Agent } from '../authoring/agent.js';
import { isContextClass } from '../authoring/context.js';
import { Workflow } from '../authoring/workflow.js';
import { describeValue } from '../core/context-verdicts.js';
import { ConfigError } from '../core/errors.js';
import { isLogger } from '../core/log.js';
import { MODEL_CALL_RECORDINGS } from '../core/model-calls.js';

// biome-ignore lint/suspicious/noExplicitAny: the engine's and the catalog's types are generic over any agent
type AnyAgent = Agent<any, any>;

/** Kinds only; at construction, so a wrong object fails where it was passed. */
export function checkCatalogKinds(agents: readonly unknown[], workflows: readonly unknown[]) {
  if (!Array.isArray(agents))
    throw new ConfigError('Deck option `agents` must be an array of Agent');
  if (!Array.isArray(workflows)) {
    throw new ConfigError('Deck option `workflows` must be an array of Workflow');
  }
  agents.forEach((a, i) => {
    if (!(a instanceof Agent)) {
      throw new ConfigError(
        `agents[${i}] is not an Agent; create it with new Agent({ name, ... })`,
      );
    }
  });
  workflows.forEach((w, i) => {
    if (!(w instanceof Workflow)) {
      throw new ConfigError(
        `workflows[${i}] is not a Workflow; create it with new Workflow({ name, ... })`,
      );
    }
  });
  return { agents: agents as AnyAgent[], workflows: workflows as Workflow[] };
}

/** Names; at build(). */
export function checkCatalogNames(agents: readonly AnyAgent[], workflows: readonly Workflow[]) {
  const problems = [
    ...duplicates(
      'agent',
      agents.map((a) => a.name),
    ),
    ...duplicates(
      'workflow',
      workflows.map((w) => w.name),
    ),
  ];
  const agentNames = new Set(agents.map((a) => a.name));
  for (const w of workflows) {
    if (agentNames.has(w.name)) {
      problems.push(
        `an agent and a workflow are both named '${w.name}'; names share one namespace (and one HTTP route space), rename one`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid catalog: ${problems.join('; ')}`);
}

function duplicates(what: string, names: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return [...dup].map((n) => `two ${what}s are named '${n}'`);
}

/** The options besides the catalog that can be wrong: at construction, where they were passed. */
export function checkDeckSettings(options: {
  context?: unknown;
  retentionDays?: unknown;
  logger?: unknown;
  recordModelCalls?: unknown;
}): void {
  if (options.context !== undefined && !isContextClass(options.context)) {
    throw new ConfigError(
      `Deck option 'context' must be a type (a class), not an instance (got ${describeValue(options.context)}); ` +
        'pass the class, e.g. new Deck({ context: Calendar }), and the instance on each run',
    );
  }
  checkRetentionDays(options.retentionDays);
  checkLogger(options.logger);
  checkRecordModelCalls(options.recordModelCalls);
}

/** `recordModelCalls`: one of `on`, `metadata`, `off`; at construction. */
export function checkRecordModelCalls(value: unknown): void {
  if (value === undefined || (MODEL_CALL_RECORDINGS as readonly unknown[]).includes(value)) return;
  throw new ConfigError(
    `Deck option \`recordModelCalls\` must be one of ${MODEL_CALL_RECORDINGS.map((v) => `'${v}'`).join(', ')}; got ${JSON.stringify(value)}`,
  );
}

/** `logger`: an object with `error`, `warn` and `info`; at construction. */
export function checkLogger(value: unknown): void {
  if (value === undefined || isLogger(value)) return;
  throw new ConfigError(
    'Deck option `logger` must have error, warn and info methods (console, pino and winston loggers do)',
  );
}

/** `retentionDays`: a positive number of days, or `null` (keep every run); at construction. */
export function checkRetentionDays(value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      `Deck option \`retentionDays\` must be a positive number of days, or null to keep every run; got ${JSON.stringify(value)}`,
    );
  }
}
