/**
 * What a caller may learn about itself: `GET /whoami` (its tenant, user and roles, which the
 * run inspector reads to show only the buttons the caller may use) and
 * `POST /runs/{run_id}/events-token` (a five-minute token for one run's event stream, for a
 * browser's `EventSource`, which cannot send `Authorization`: events-token.ts).
 */
import { z } from 'zod';
import { ROLES } from '../../core/identity.js';
import type { HttpDeps } from './deps.js';
import { HttpError } from './errors.js';
import { ACCESS_TOKEN_PARAM, EVENTS_TOKEN_SECONDS, type EventsTokens } from './events-token.js';
import { identityOf } from './identity.js';
import { route } from './routes.js';
import { Detail } from './schemas.js';

export const WhoAmI = z
  .object({
    tenant: z.string().nullable().describe('The tenant whose runs the caller sees; `null`: none.'),
    user: z.string().nullable().describe("The user (a token's subject, a key's name), or `null`."),
    roles: z.array(z.enum(ROLES)).describe('What the caller may do, in the order `ROLES` lists.'),
  })
  .meta({ id: 'WhoAmI', description: 'The caller as the service sees it.' });

export const EventsToken = z
  .object({
    token: z.string(),
    expires_at: z.string().describe('When it stops being accepted (ISO 8601).'),
    events_url: z.string().describe('The events route with the token in its query, to open.'),
  })
  .meta({ id: 'EventsToken', description: "A short-lived token for one run's events." });

export function callerRoutes(deps: HttpDeps, tokens: EventsTokens) {
  return [
    route({
      method: 'get',
      path: '/whoami',
      role: 'read',
      summary: 'The caller: its tenant, user and roles',
      description:
        'With no authentication configured: no tenant, no user, every role. Never echoes a token or its claims.',
      tag: 'caller',
      responses: { 200: { description: 'The caller.', schema: WhoAmI } },
      handle({ request }) {
        const { tenant, user, roles } = identityOf(request);
        return Response.json({ tenant, user, roles: ROLES.filter((role) => roles.has(role)) });
      },
    }),
    route({
      method: 'post',
      path: '/runs/{run_id}/events-token',
      role: 'read',
      summary: "A short-lived token for one run's events, for a browser's EventSource",
      description:
        `The token opens \`GET /runs/{run_id}/events?${ACCESS_TOKEN_PARAM}=<token>\` for this run ` +
        `only, for ${EVENTS_TOKEN_SECONDS / 60} minutes, as the caller's tenant and user with the ` +
        '`read` role alone. Ask for it from a backend holding the real credentials and hand it to ' +
        'the page: the credentials never reach a URL.',
      tag: 'caller',
      responses: {
        200: { description: 'The token.', schema: EventsToken },
        404: { description: 'No run by that id.', schema: Detail },
      },
      async handle({ params, request }) {
        const runId = params.run_id ?? '';
        const run = await deps.eventLog().getRun(runId);
        if (!run) throw new HttpError(404, `No run '${runId}'.`);
        const { token, expiresAt } = tokens.issue(runId, identityOf(request));
        const path = `/runs/${encodeURIComponent(runId)}/events`;
        return Response.json({
          token,
          expires_at: expiresAt,
          events_url: `${path}?${ACCESS_TOKEN_PARAM}=${encodeURIComponent(token)}`,
        });
      },
    }),
  ];
}
