/**
 * Static API keys, each mapped to the identity it stands for: a tenant, the roles it grants
 * and, optionally, a user name. A plain key (`SERVICE_API_KEYS=sk-one`) means what it always
 * meant: no tenant, every role. A mapped one is written `key=tenant:role+role` in the
 * environment (`sk-two=acme:read+run`; an empty tenant is none, `*` every role), as an object
 * in `deck.app({ apiKeys })`, or in the JSON file `SERVICE_API_KEYS_FILE` names (an array of
 * those objects), for keys that hold `=` or need a user name.
 *
 * A key given is compared with every configured key in constant time per key, so the time an
 * answer takes does not tell which key nearly matched.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../../core/errors.js';
import { type Identity, isRole, ROLES, type Role } from '../../../core/identity.js';

/** One configured key and whom it stands for. */
export interface ApiKey {
  /** The secret a client sends as `Authorization: Bearer <key>`. */
  key: string;
  /** The tenant whose runs the key sees and starts. @default null: no tenant */
  tenant?: string | null;
  /** What the key may do. @default every role */
  roles?: readonly Role[];
  /** Recorded as the user of the runs it starts (a service's name: `ci`, `billing-backend`). @default null */
  user?: string | null;
}

/** `key=tenant:roles`: the key is everything before the last `=` that is followed by a mapping. */
const MAPPED = /^(.+)=([^=:]*):([^=:]*)$/;

/**
 * `SERVICE_API_KEYS` entries: `key` or `key=tenant:role+role`. An entry with a `=` that is not
 * base64 padding at its end but does not read as a mapping is refused, rather than silently
 * taken as a plain key granting every role (`sk=acme`, a mapping with its roles forgotten).
 */
export function parseApiKeys(raw: string, where = 'SERVICE_API_KEYS'): ApiKey[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      const mapped = MAPPED.exec(entry);
      if (!mapped) {
        if (/=[^=]/.test(entry)) {
          throw new ConfigError(
            `${where}: entry ${index + 1} holds '=' but is not 'key=tenant:role+role' ` +
              `(roles: ${ROLES.join(', ')} or *); a key that itself holds '=' goes in ` +
              'SERVICE_API_KEYS_FILE',
          );
        }
        return { key: entry };
      }
      const [, key = '', tenant = '', roles = ''] = mapped;
      return checkApiKey(
        {
          key,
          tenant: tenant === '' ? null : tenant,
          roles: parseRoles(roles, `${where}: entry ${index + 1}`),
        },
        where,
      );
    });
}

/** The keys of the JSON file `path` (an array of {@link ApiKey} objects). */
export function apiKeysFromFile(path: string, where = 'SERVICE_API_KEYS_FILE'): ApiKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${where}: cannot read '${path}' as JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) {
    throw new ConfigError(
      `${where}: '${path}' must hold a JSON array of {key, tenant, roles, user}`,
    );
  }
  return parsed.map((entry: unknown) => checkApiKey(entry, `${where} ('${path}')`));
}

/** `deck.app({ apiKeys })` entries, strings or objects, checked. */
export function normalizeApiKeys(keys: readonly (string | ApiKey)[], where = 'apiKeys'): ApiKey[] {
  return keys.map((entry) =>
    typeof entry === 'string' ? checkApiKey({ key: entry }, where) : checkApiKey(entry, where),
  );
}

function parseRoles(raw: string, where: string): Role[] {
  if (raw.trim() === '*') return [...ROLES];
  const roles = raw
    .split('+')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  for (const role of roles) {
    if (!isRole(role)) {
      throw new ConfigError(
        `${where}: unknown role '${role}'; roles are ${ROLES.join(', ')} (or * for all)`,
      );
    }
  }
  if (roles.length === 0)
    throw new ConfigError(`${where}: names no role; write one of ${ROLES.join(', ')} or *`);
  return roles as Role[];
}

function checkApiKey(entry: unknown, where: string): ApiKey {
  const e = entry as Partial<Record<keyof ApiKey, unknown>> | null;
  if (typeof e !== 'object' || e === null || typeof e.key !== 'string' || e.key.trim() === '') {
    throw new ConfigError(
      `${where}: each key must be a non-empty string or {key, tenant?, roles?, user?}`,
    );
  }
  if (
    e.tenant !== undefined &&
    e.tenant !== null &&
    (typeof e.tenant !== 'string' || e.tenant === '')
  ) {
    throw new ConfigError(`${where}: a key's tenant must be a non-empty string or null`);
  }
  if (e.user !== undefined && e.user !== null && typeof e.user !== 'string') {
    throw new ConfigError(`${where}: a key's user must be a string or null`);
  }
  if (e.roles !== undefined && (!Array.isArray(e.roles) || !e.roles.every(isRole))) {
    throw new ConfigError(`${where}: a key's roles must be an array of ${ROLES.join(', ')}`);
  }
  return {
    key: e.key.trim(),
    tenant: (e.tenant as string | null | undefined) ?? null,
    roles: (e.roles as Role[] | undefined) ?? [...ROLES],
    user: (e.user as string | null | undefined) ?? null,
  };
}

/** The configured keys, ready to be matched against what a client sends. */
export class KeyRing {
  readonly #keys: { secret: Buffer; identity: Identity }[];

  constructor(keys: readonly ApiKey[]) {
    this.#keys = keys.map((k) => ({
      secret: Buffer.from(k.key),
      identity: Object.freeze({
        tenant: k.tenant ?? null,
        user: k.user ?? null,
        roles: new Set(k.roles ?? ROLES),
        via: 'key' as const,
      }),
    }));
  }

  get size(): number {
    return this.#keys.length;
  }

  /** The identity of the key `given`, or `null` when it is none of them. */
  match(given: string): Identity | null {
    const bytes = Buffer.from(given);
    // Compare against every key, so timing does not reveal which (or whether one) matched.
    let found: Identity | null = null;
    for (const { secret, identity } of this.#keys) {
      if (secret.length === bytes.length && timingSafeEqual(secret, bytes)) found = identity;
    }
    return found;
  }
}
