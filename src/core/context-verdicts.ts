/**
 * The rulings on context requirements, SPEC.md "Context compatibility at build":
 * `ruleOn()` decides at build time from the declared class alone (compatible, incompatible,
 * or deferred when a class cannot tell), and `checkContextValue()` decides at invocation
 * from the value itself, for deferred requirements and for decks that declared no type.
 */
import {
  type ContextClass,
  type ContextRequirement,
  className,
  describeRequirement,
  isContextClass,
} from './context-requirements.js';
import { ContextTypeError } from './errors.js';

export type Verdict =
  | { readonly verdict: 'compatible' }
  | { readonly verdict: 'incompatible'; readonly why: string }
  | { readonly verdict: 'deferred'; readonly why: string };

const COMPATIBLE: Verdict = { verdict: 'compatible' };

/** Rule on a requirement against the deck's declared context class. */
export function ruleOn(requirement: ContextRequirement, declared: ContextClass): Verdict {
  const provided = className(declared);
  if (isContextClass(requirement)) {
    // The declared class is the requirement or extends it (the requirement is a supertype).
    if (declared === requirement || declared.prototype instanceof requirement) return COMPATIBLE;
    return { verdict: 'incompatible', why: classMismatch(requirement, declared) };
  }
  switch (requirement.kind) {
    case 'any':
      return COMPATIBLE;
    case 'union': {
      const verdicts = requirement.arms.map((arm) => ruleOn(arm, declared));
      if (verdicts.some((v) => v.verdict === 'compatible')) return COMPATIBLE;
      const deferred = verdicts.find((v) => v.verdict === 'deferred');
      if (deferred) return deferred;
      return { verdict: 'incompatible', why: `${provided} matches no arm of the union` };
    }
    case 'protocol': {
      if (requirement.properties.length > 0) {
        return {
          verdict: 'deferred',
          why: `protocol ${requirement.name} names properties, which a class does not show; the value is checked at invocation`,
        };
      }
      const missing = requirement.methods.filter((m) => !hasMethod(declared.prototype, m));
      if (missing.length === 0) return COMPATIBLE;
      return {
        verdict: 'incompatible',
        why:
          `${provided} has no method ${missing.map((m) => `${m}()`).join(', ')} ` +
          '(methods are read from the class; an arrow-function field is not one: declare it as a method)',
      };
    }
    case 'type-parameter':
      return {
        verdict: 'deferred',
        why: `type parameter ${requirement.name} is bound at the call; the value is checked at invocation`,
      };
  }
}

/**
 * Check the value a site receives at invocation. `null` (no context passed: a resume
 * without one, `tick()`) is not an error here: the site reads `null` and fails where it
 * first uses it. `where` names the site, e.g. "tool 'slots' of agent 'Booker'".
 */
export function checkContextValue(
  requirement: ContextRequirement,
  value: unknown,
  where: string,
): void {
  if (value === null || value === undefined) return;
  const why = valueMismatch(requirement, value);
  if (why === null) return;
  throw new ContextTypeError(
    `${where} requires a context of ${describeRequirement(requirement)}, but the run was given ${describeValue(value)} (${why}); ` +
      `pass a value that satisfies ${describeRequirement(requirement)} as \`context\``,
  );
}

/** Why a value does not satisfy a requirement, or null when it does. */
function valueMismatch(requirement: ContextRequirement, value: unknown): string | null {
  if (isContextClass(requirement)) {
    if (value instanceof requirement || typeof value === PRIMITIVES.get(requirement)) return null;
    return `not an instance of ${className(requirement)}`;
  }
  switch (requirement.kind) {
    case 'any':
      return null;
    case 'union': {
      const misses = requirement.arms.map((arm) => valueMismatch(arm, value));
      return misses.includes(null) ? null : misses.join('; and ');
    }
    case 'protocol': {
      const target = Object(value) as Record<string, unknown>;
      const missing = [
        ...requirement.methods.filter((m) => typeof target[m] !== 'function').map((m) => `${m}()`),
        ...requirement.properties.filter((p) => !(p in target)),
      ];
      return missing.length === 0 ? null : `it lacks ${missing.join(', ')}`;
    }
    case 'type-parameter':
      return requirement.bound === null || value instanceof requirement.bound
        ? null
        : `not an instance of ${className(requirement.bound)}, the bound of ${requirement.name}`;
  }
}

function classMismatch(requirement: ContextClass, declared: ContextClass): string {
  const [required, provided] = [className(requirement), className(declared)];
  if (requirement.prototype instanceof declared) {
    return `${required} is a subclass of ${provided}; a ${provided} may lack what it adds`;
  }
  if (required === provided) {
    return `two different classes named ${required} are loaded (two copies of its module, e.g. one loaded by the project's bundles); share one: pass it to Deck.fromProject's \`modules\` option or import both from one package`;
  }
  return `${provided} is not ${required} and does not extend it`;
}

/** The `typeof` of values a primitive wrapper class stands for (`context: String`). */
const PRIMITIVES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [BigInt, 'bigint'],
  [Symbol, 'symbol'],
]);

/** A method on a prototype chain, read through descriptors so no getter runs. */
function hasMethod(prototype: object | null, name: string): boolean {
  for (let p = prototype; p !== null; p = Object.getPrototypeOf(p)) {
    const descriptor = Object.getOwnPropertyDescriptor(p, name);
    if (descriptor) return typeof descriptor.value === 'function';
  }
  return false;
}

/** A value as a message names it: "an instance of Calendar", "a string", "null". */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') {
    return `an instance of ${value.constructor?.name ?? 'Object'}`;
  }
  return `a ${typeof value}`;
}
