/**
 * A variant of an agent (#41): the same agent with another model, other instructions or
 * other model settings, for a replay of a recorded turn or an experiment's runs. A variant is
 * a derived definition, never a change to the agent: each distinct variant is made once per
 * agent, so the engine compiles it once (its compile cache is keyed by definition).
 */
import { ConfigError, InvalidInputError } from '../core/errors.js';
import type { AgentDefinition, AgentModelSettings } from './agent-definition.js';

/** What a variant changes; an absent field keeps the agent's own. */
export interface AgentVariant {
  /** The model's name, e.g. `gpt-4.1-mini`. */
  model?: string;
  /** Instructions that replace the agent's own. */
  instructions?: string;
  /** Model settings merged over the agent's own (`temperature`, `maxTokens`...). */
  modelSettings?: AgentModelSettings;
}

const VARIANT_FIELDS = new Set(['model', 'instructions', 'modelSettings']);

/** The agent with the variant applied; the agent itself when the variant changes nothing. */
export function withVariant<C, O>(
  agent: AgentDefinition<C, O>,
  variant: AgentVariant | undefined,
): AgentDefinition<C, O> {
  const checked = checkVariant(variant);
  if (checked === undefined) return agent;
  const key = JSON.stringify(checked);
  let made = variantsOf.get(agent);
  if (!made) {
    made = new Map();
    variantsOf.set(agent, made);
  }
  const known = made.get(key);
  if (known) return known as AgentDefinition<C, O>;
  // The agent's own prototype, so `instanceof Agent` and its methods still hold.
  const derived = Object.assign(Object.create(Object.getPrototypeOf(agent)), agent, {
    ...(checked.model !== undefined ? { model: checked.model } : {}),
    ...(checked.instructions !== undefined ? { instructions: checked.instructions } : {}),
    ...(checked.modelSettings !== undefined
      ? { modelSettings: { ...agent.modelSettings, ...checked.modelSettings } }
      : {}),
  }) as AgentDefinition<C, O>;
  Object.freeze(derived);
  made.set(key, derived);
  return derived;
}

/** Each agent's variants made so far, by their JSON. */
const variantsOf = new WeakMap<object, Map<string, object>>();

/**
 * A caller's variant, checked: `undefined` when it changes nothing; an InvalidInputError
 * naming the field for anything else than the three fields and their types.
 */
export function checkVariant(variant: unknown): AgentVariant | undefined {
  if (variant === undefined || variant === null) return undefined;
  if (typeof variant !== 'object' || Array.isArray(variant)) {
    throw new InvalidInputError(
      'variant must be an object: {model?, instructions?, modelSettings?}',
    );
  }
  const fields = variant as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!VARIANT_FIELDS.has(key)) {
      throw new InvalidInputError(
        `variant.${key} is not a variant field; use model, instructions or modelSettings`,
      );
    }
  }
  const { model, instructions, modelSettings } = fields;
  if (model !== undefined && (typeof model !== 'string' || model.trim() === '')) {
    throw new InvalidInputError('variant.model must be a non-empty model name');
  }
  if (instructions !== undefined && typeof instructions !== 'string') {
    throw new InvalidInputError('variant.instructions must be a string');
  }
  if (modelSettings !== undefined && !isPlainObject(modelSettings)) {
    throw new InvalidInputError('variant.modelSettings must be an object, e.g. {"temperature": 0}');
  }
  const checked: AgentVariant = {
    ...(model !== undefined ? { model: model as string } : {}),
    ...(instructions !== undefined ? { instructions: instructions as string } : {}),
    ...(modelSettings !== undefined ? { modelSettings: modelSettings as AgentModelSettings } : {}),
  };
  return Object.keys(checked).length === 0 ? undefined : checked;
}

/** An agent's `modelSettings` option, checked at construction. */
export function checkModelSettings(
  owner: string,
  settings: AgentModelSettings | undefined,
): AgentModelSettings | undefined {
  if (settings === undefined) return undefined;
  if (!isPlainObject(settings)) {
    throw new ConfigError(`${owner}: modelSettings must be an object, e.g. { temperature: 0 }`);
  }
  return Object.freeze({ ...settings });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
