/**
 * The deck's catalog as read-only mappings (name -> definition). After construction
 * nothing can add, replace or remove an entry: `set`, `delete` and `clear` throw.
 */
import { ConfigError, NotFoundError } from '../core/errors.js';

export class CatalogMap<V> extends Map<string, V> implements ReadonlyMap<string, V> {
  #frozen = false;

  /** The map of `items` by their `name`. */
  static byName<V extends { readonly name: string }>(what: string, items: readonly V[]) {
    return new CatalogMap<V>(
      what,
      items.map((item) => [item.name, item] as const),
    );
  }

  constructor(
    private readonly what: string,
    entries: Iterable<readonly [string, V]>,
  ) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#frozen = true;
  }

  override set(key: string, value: V): this {
    if (this.#frozen) this.refuse(`set '${key}'`);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.refuse(`delete '${key}'`);
  }

  override clear(): void {
    this.refuse('clear');
  }

  private refuse(operation: string): never {
    throw new ConfigError(
      `deck.${this.what} is read-only (${operation}); pass the catalog to new Deck({ ${this.what} }) instead`,
    );
  }
}

/** The agent or workflow named `name` (they share one namespace), or NotFoundError listing both. */
export function invocableOf<A, W>(
  agents: ReadonlyMap<string, A>,
  workflows: ReadonlyMap<string, W>,
  name: string,
): { kind: 'agent'; agent: A } | { kind: 'workflow'; workflow: W } {
  const agent = agents.get(name);
  if (agent) return { kind: 'agent', agent };
  const workflow = workflows.get(name);
  if (workflow) return { kind: 'workflow', workflow };
  const names = [...agents.keys(), ...workflows.keys()];
  throw new NotFoundError(
    `No agent or workflow named '${name}'. Available: [${names.map((n) => `'${n}'`).join(', ')}].`,
  );
}
