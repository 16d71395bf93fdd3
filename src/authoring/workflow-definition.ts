/**
 * What the runtime and the engine adapter read of a workflow, apart from the `Workflow`
 * facade (workflow.ts), and the checks of its input and run settings.
 */
import { InvalidInputError } from '../core/errors.js';
import type { QueuePolicy } from './queue-options.js';
import { isStateSchema, stateSchemaProblems } from './state-schema.js';

/** An uncompiled graph (a LangGraph `StateGraph`); the deck compiles it. */
export interface GraphBuilder {
  // biome-ignore lint/suspicious/noExplicitAny: LangGraph's compile options are engine types we do not expose
  compile(options?: any): unknown;
}

/** LangGraph run settings a workflow declares, which a run may override. */
export interface WorkflowRunSettings {
  recursionLimit?: number;
  maxConcurrency?: number;
}

/** When a workflow's checkpoints are written: LangGraph's `durability` (see `WorkflowOptions`). */
export type CheckpointDurability = 'exit' | 'async' | 'sync';

/** The durability a workflow's runs use unless it declares one. */
export const DEFAULT_DURABILITY: CheckpointDurability = 'exit';

const DURABILITIES: readonly CheckpointDurability[] = ['exit', 'async', 'sync'];

/** Check a declared durability; `where` names the workflow in the error. */
export function checkDurability(where: string, value: unknown): CheckpointDurability {
  if (value === undefined) return DEFAULT_DURABILITY;
  if (!DURABILITIES.includes(value as CheckpointDurability)) {
    throw new InvalidInputError(
      `${where}: \`durability\` must be one of ${DURABILITIES.map((d) => `'${d}'`).join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return value as CheckpointDurability;
}

/** What the engine and runtime read of a workflow. */
export interface WorkflowDefinition {
  /** The brand that tells a workflow from a tool in an agent's `tools`. */
  readonly kind: 'agentdeck.workflow';
  readonly name: string;
  /** What it does, for the catalog and other agents (`descriptionOf()` fills in a sentence when absent). */
  readonly description?: string | undefined;
  /** Its queue limits (queue-options.ts); absent: none. */
  readonly queue?: QueuePolicy;
  readonly state: unknown;
  readonly durable: boolean;
  readonly graph: (state: unknown) => GraphBuilder;
  /** The LangGraph run settings its calls use unless a run overrides them. */
  readonly runSettings: Readonly<WorkflowRunSettings>;
  /** When its checkpoints are written; {@link DEFAULT_DURABILITY} when absent. */
  readonly durability?: CheckpointDurability;
  /** The version it declares, part of its graph's fingerprint (docs/workflow-versions.md). */
  readonly version?: string | undefined;
  /** Carries a thread's state over to this version's graph (docs/workflow-versions.md). */
  readonly migrate?: WorkflowMigrate | undefined;
}

/**
 * A workflow's `migrate` hook: given a paused thread's state and the graph that wrote it (its
 * declared version, else `#hash`; `null` for a checkpoint written before fingerprints),
 * returns the state for the current graph.
 */
export type WorkflowMigrate = (args: {
  state: Record<string, unknown>;
  from: string | null;
}) => Record<string, unknown> | Promise<Record<string, unknown>>;

/**
 * Check run settings (a workflow's or a run's override): each a positive whole number.
 * `where` names them in the error, e.g. "workflow 'approval'".
 */
export function checkRunSettings(
  where: string,
  settings: WorkflowRunSettings,
): WorkflowRunSettings {
  const checked: WorkflowRunSettings = {};
  for (const key of ['recursionLimit', 'maxConcurrency'] as const) {
    const value = settings[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new InvalidInputError(
        `${where}: \`${key}\` must be a positive whole number, got ${JSON.stringify(value)}`,
      );
    }
    checked[key] = value;
  }
  return checked;
}

/**
 * Check an initial state before anything runs or is recorded: a plain object, and, when
 * the state is a zod object schema or a LangGraph `StateSchema`, valid for it (fields may be
 * missing; nodes fill them).
 */
export function checkWorkflowInput(
  workflow: WorkflowDefinition,
  input: unknown,
): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidInputError(
      `workflow '${workflow.name}' takes its initial state as an object mapping, got ${
        Array.isArray(input) ? 'an array' : input === null ? 'null' : typeof input
      }`,
    );
  }
  if (isStateSchema(workflow.state)) {
    const problems = stateSchemaProblems(workflow.state, input as Record<string, unknown>);
    if (problems.length > 0) {
      throw new InvalidInputError(
        `invalid initial state for workflow '${workflow.name}': ${problems.join('; ')}`,
      );
    }
    return input as Record<string, unknown>;
  }
  const partial = partialSchema(workflow.state);
  if (partial) {
    const parsed = partial.safeParse(input);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      throw new InvalidInputError(
        `invalid initial state for workflow '${workflow.name}': ${problems}`,
      );
    }
  }
  return input as Record<string, unknown>;
}

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}
interface PartialSchema {
  safeParse(
    value: unknown,
  ): { success: true } | { success: false; error: { issues: ZodIssueLike[] } };
}

/** Partial schemas by state schema: building one costs more than checking a small state. */
const partials = new WeakMap<object, PartialSchema | null>();

/** The state schema with every field optional, when it is a zod object schema. */
function partialSchema(state: unknown): PartialSchema | null {
  if (typeof state !== 'object' || state === null) return null;
  const known = partials.get(state);
  if (known !== undefined) return known;
  const candidate = state as { partial?: () => PartialSchema };
  const partial = typeof candidate.partial === 'function' ? candidate.partial() : null;
  const usable = typeof partial?.safeParse === 'function' ? partial : null;
  partials.set(state, usable);
  return usable;
}

/** Whether a value is a workflow definition (by its brand; `instanceof` fails across bundles). */
export function isWorkflowDefinition(value: unknown): value is WorkflowDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'agentdeck.workflow'
  );
}
