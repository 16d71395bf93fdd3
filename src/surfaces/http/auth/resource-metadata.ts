/**
 * `GET /.well-known/oauth-protected-resource`: the protected resource metadata of RFC 9728,
 * which the MCP specification requires of a protected server. An OAuth client (an MCP client
 * that got a 401 from `/mcp`, whose `WWW-Authenticate` names this document) reads here which
 * authorization server issues tokens for this service, how to send them and which scopes
 * grant the roles; it then gets a token there and calls again. Public, like the health probes:
 * a client reads it before it has a token. Served only when token verification is on.
 */
import { z } from 'zod';
import { ROLES } from '../../../core/identity.js';
import type { AppOptions } from '../options.js';
import { route } from '../routes.js';
import { resolveTokenSettings, type TokenSettings, tokenOptionsFromEnv } from './token-settings.js';
import { RESOURCE_METADATA_PATH, resourceOf, SCOPE_PREFIX } from './tokens.js';

const ResourceMetadata = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    resource_name: z.string(),
  })
  .meta({
    id: 'ResourceMetadata',
    description: 'OAuth 2.0 protected resource metadata (RFC 9728).',
  });

/** The metadata route when `options` (or `SERVICE_AUTH_*`) turn token verification on, else none. */
export function resourceMetadataRoutes(options: AppOptions<unknown>, name: string) {
  const tokens = { ...tokenOptionsFromEnv(), ...options.tokens };
  const settings = resolveTokenSettings(tokens);
  return settings ? [resourceMetadataRoute(settings, name)] : [];
}

function resourceMetadataRoute(settings: TokenSettings, name: string) {
  return route({
    method: 'get',
    path: RESOURCE_METADATA_PATH,
    summary: 'OAuth protected resource metadata (RFC 9728)',
    description:
      'Which authorization server issues the tokens this service accepts, and the scopes that ' +
      'grant its roles (`agentdeck:read`, `agentdeck:run`...). MCP clients read it after a 401.',
    tag: 'auth',
    public: true,
    responses: { 200: { description: 'The metadata.', schema: ResourceMetadata } },
    handle: ({ request }) =>
      Response.json({
        resource: resourceOf(settings, request),
        authorization_servers: [settings.issuer],
        // Only the header: a token in a query string or form body ends up in logs.
        bearer_methods_supported: ['header'],
        scopes_supported: ROLES.map((role) => `${SCOPE_PREFIX}${role}`),
        resource_name: name,
      }),
  });
}
