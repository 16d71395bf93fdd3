/**
 * What a callable says it needs of the run context, in a form that survives type erasure.
 * TypeScript checks `Context<T>` at compile time; `build()` needs a runtime value to rule
 * on, so each injection site also carries one of these requirements: a class, `Context.any`,
 * a union of requirements, a protocol (members by name) or a type parameter. The phantom
 * `T` lets the same value type `ctx.data`.
 */

/** A class usable as a context type or requirement (abstract classes included). */
// biome-ignore lint/suspicious/noExplicitAny: constructor parameters of an arbitrary class
export type ContextClass<T = unknown> = abstract new (...args: any[]) => T;

declare const CONTEXT_TYPE: unique symbol;
const REQUIREMENT: unique symbol = Symbol.for('agentdeck.contextRequirement');

type RequirementFields =
  | { readonly kind: 'any' }
  | { readonly kind: 'union'; readonly arms: readonly ContextRequirement[] }
  | {
      readonly kind: 'protocol';
      readonly name: string;
      readonly methods: readonly string[];
      readonly properties: readonly string[];
    }
  | { readonly kind: 'type-parameter'; readonly name: string; readonly bound: ContextClass | null };

/** The non-class requirements; build with `Context.any`, `oneOf`, `protocol`, `typeParameter`. */
export type RequirementSpec<T = unknown> = RequirementFields & {
  readonly [REQUIREMENT]: true;
  /** Phantom: the type `ctx.data` has at a site with this requirement. Never set. */
  readonly [CONTEXT_TYPE]?: T;
};

/** What an injection site requires of the context; `T` is the type its `ctx.data` has. */
export type ContextRequirement<T = unknown> = ContextClass<T> | RequirementSpec<T>;

/** The type a requirement gives `ctx.data`. */
export type RequiredType<R> =
  R extends ContextClass<infer T> ? T : R extends RequirementSpec<infer T> ? T : never;

function spec<T>(fields: RequirementFields): RequirementSpec<T> {
  return Object.freeze({ ...fields, [REQUIREMENT]: true }) as RequirementSpec<T>;
}

/** Compatible with any declared context; `ctx.data` is `unknown`. */
export const ANY_CONTEXT: RequirementSpec<unknown> = spec({ kind: 'any' });

/**
 * A union: compatible when any arm is.
 * @example tool({ ..., context: oneOf(Calendar, Clock), execute: (args, ctx) => ... })
 */
export function oneOf<const R extends readonly ContextRequirement<unknown>[]>(
  ...arms: R
): RequirementSpec<RequiredType<R[number]>> {
  if (arms.length === 0) throw new TypeError('oneOf() needs at least one requirement');
  arms.forEach((arm, i) => {
    if (!isContextRequirement(arm)) {
      throw new TypeError(
        `oneOf() argument ${i} is not a context requirement (a class, Context.any, oneOf(), protocol() or typeParameter())`,
      );
    }
  });
  return spec({ kind: 'union', arms: Object.freeze([...arms]) });
}

// biome-ignore lint/suspicious/noExplicitAny: a protocol's methods take whatever the caller passes
type MethodsOf<M extends string> = { [K in M]: (...args: any[]) => unknown };

/**
 * A protocol: an object with these members. With methods only, `build()` checks it
 * structurally against the declared class's prototype; with properties (instance fields,
 * invisible on a class) it cannot rule, and the value is checked at invocation.
 * @example
 * protocol<Clock>('Clock', ['now'])            // typed by an interface
 * protocol('Clock', ['now'])                    // typed { now(...args): unknown }
 * protocol<Tenant>('Tenant', ['quota'], { properties: ['tenantId'] })
 */
export function protocol<T>(
  name: string,
  methods: readonly (keyof T & string)[],
  options?: { properties?: readonly (keyof T & string)[] },
): RequirementSpec<T>;
export function protocol<const M extends string, const P extends string = never>(
  name: string,
  methods: readonly M[],
  options?: { properties?: readonly P[] },
): RequirementSpec<MethodsOf<M> & { readonly [K in P]: unknown }>;
export function protocol(
  name: string,
  methods: readonly string[],
  options: { properties?: readonly string[] } = {},
): RequirementSpec<unknown> {
  const properties = options.properties ?? [];
  if (typeof name !== 'string' || name === '') throw new TypeError('protocol() needs a name');
  if (!Array.isArray(methods) || methods.length + properties.length === 0) {
    throw new TypeError(`protocol '${name}' needs at least one member name`);
  }
  return spec({
    kind: 'protocol',
    name,
    methods: Object.freeze([...methods]),
    properties: Object.freeze([...properties]),
  });
}

/**
 * A type parameter of a generic callable (a tool factory generic in its context type):
 * `build()` cannot rule on it, so the value is checked at invocation, against `bound` when
 * one is given.
 * @example function auditTool<T extends Auditable>() { return tool({ context: typeParameter<T>('T', Auditable), ... }) }
 */
export function typeParameter<T = unknown>(
  name: string,
  bound?: ContextClass<T>,
): RequirementSpec<T> {
  return spec({ kind: 'type-parameter', name, bound: bound ?? null });
}

export function isRequirementSpec(value: unknown): value is RequirementSpec {
  return typeof value === 'object' && value !== null && REQUIREMENT in value;
}

/** Whether a value is a class (a context type) rather than an instance. */
export function isContextClass(value: unknown): value is ContextClass {
  return typeof value === 'function' && value.prototype !== undefined;
}

export function isContextRequirement(value: unknown): value is ContextRequirement {
  return isContextClass(value) || isRequirementSpec(value);
}

/** A requirement as a reader writes it: `Calendar`, `Calendar | Clock`, `protocol Clock { now() }`. */
export function describeRequirement(requirement: ContextRequirement): string {
  if (isContextClass(requirement)) return className(requirement);
  switch (requirement.kind) {
    case 'any':
      return 'Context.any';
    case 'union':
      return requirement.arms.map(describeRequirement).join(' | ');
    case 'protocol': {
      const members = [...requirement.methods.map((m) => `${m}()`), ...requirement.properties].join(
        '; ',
      );
      return `protocol ${requirement.name} { ${members} }`;
    }
    case 'type-parameter':
      return requirement.bound
        ? `type parameter ${requirement.name} extends ${className(requirement.bound)}`
        : `type parameter ${requirement.name}`;
  }
}

export function className(cls: ContextClass): string {
  return cls.name || '(anonymous class)';
}
