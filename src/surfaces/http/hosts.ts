/**
 * DNS rebinding. A page on a name an attacker controls, whose DNS the attacker then points at
 * this server's address, is same-origin with the server as far as the browser knows: it sends
 * the page's requests with `Host` and `Origin` of the attacker's name and `Sec-Fetch-Site:
 * same-origin`, and lets the page read the answers, so neither CORS nor the cross-origin
 * check (browsers.ts) stops it. Only `Host` tells such a request apart: one naming a host the
 * server does not answer to is refused (403) before anything else, as the MCP SDK and the dev
 * servers (Vite, webpack's) do.
 *
 * Always allowed: an IP address (an address cannot be rebound) and `localhost` or a name
 * under `.localhost` (a browser resolves those to this machine itself). Besides them, the
 * names of `allowedHosts` (`SERVICE_ALLOWED_HOSTS`): `agentdeck.example.com`, `.example.com`
 * for it and every name under it, `*` for any host. With none set, `serve()` bound to a
 * loopback address answers only those always allowed; bound beyond loopback (the spec's
 * 0.0.0.0), or `deck.app()` served by other means, it answers any host, as release 1.2.1 did.
 */
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { ConfigError } from '../../core/errors.js';
import { detailResponse } from './errors.js';

/** An address only this machine reaches (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare) ||
    bare.endsWith('.localhost')
  );
}

/** Check `SERVICE_ALLOWED_HOSTS` / `allowedHosts` entries: host names, `.suffix` or `*`, lower-cased. */
export function checkHosts(hosts: readonly string[], where = 'allowedHosts'): string[] {
  return hosts.map((raw) => {
    const host = raw.trim().toLowerCase();
    if (host === '*') return host;
    if (host === '' || host === '.' || /[/:@\s]/.test(host)) {
      throw new ConfigError(
        `${where}: '${raw}' is not a host name; write a name without scheme or port, such as ` +
          "'agentdeck.example.com', '.example.com' for every name under it, or '*' for any",
      );
    }
    return host;
  });
}

/** Whether a request's `Host` header names a host the server answers to. */
export function hostAllowed(header: string, allowed: readonly string[]): boolean {
  let name: string;
  try {
    name = new URL(`http://${header}`).hostname;
  } catch {
    return false; // not a host at all
  }
  if (isIP(name.replace(/^\[(.*)\]$/, '$1')) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const bare = name.replace(/\.$/, ''); // `example.com.` is `example.com`
  return allowed.some(
    (entry) =>
      entry === '*' ||
      entry === bare ||
      (entry.startsWith('.') && (bare === entry.slice(1) || bare.endsWith(entry))),
  );
}

/** Refuse a request for a host not in `allowed` (403); `null` when any host is answered. */
export function hostCheck(allowed: readonly string[]): MiddlewareHandler | null {
  if (allowed.includes('*')) return null;
  return async (c, next) => {
    const header = c.req.header('host') ?? new URL(c.req.url).host;
    if (hostAllowed(header, allowed)) return next();
    return detailResponse(
      403,
      `request for host '${header}' refused: this server answers to localhost, IP addresses` +
        `${allowed.length > 0 ? ` and ${allowed.join(', ')}` : ''}. A name of your own ` +
        '(a proxy, a DNS name) must be listed in SERVICE_ALLOWED_HOSTS or deck.app({ allowedHosts })',
    );
  };
}
