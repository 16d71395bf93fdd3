/**
 * Why the gate refused a request, as a closed list of reasons: each becomes a 401 whose body
 * names the reason in words that leak nothing (never the token, never which key nearly
 * matched), the `WWW-Authenticate` challenge RFC 6750 asks for, and one count in
 * `agentdeck_auth_refusals_total{reason}` (a closed list keeps the metric's series bounded).
 * An issuer that cannot be reached is not the client's fault: 503, naming the issuer, with
 * `Retry-After`.
 */
import { detailResponse } from '../errors.js';

/** What a refusal is counted as. */
export const REFUSAL_REASONS = {
  missing: 'no credentials: send Authorization: Bearer <token or key>',
  invalid_key: 'invalid API key',
  malformed: 'the bearer token is malformed',
  header_too_large: 'the Authorization header is too large',
  algorithm: "the token's signing algorithm is not accepted",
  unknown_key: "the token's signing key is unknown to the issuer",
  bad_signature: "the token's signature does not verify",
  expired: 'the token has expired',
  not_yet_valid: 'the token is not valid yet',
  wrong_issuer: 'the token was issued by another issuer',
  wrong_audience: 'the token is meant for another audience',
  claims: "the token's claims are missing or of the wrong type",
  refused: 'the credentials were refused',
  issuer_unavailable: "the token issuer's keys cannot be fetched",
} as const;

export type RefusalReason = keyof typeof REFUSAL_REASONS;

/** A refusal a verifier raises; the gate turns it into a response. */
export class AuthRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    /** Words to add to the reason's own (a claim's name, the issuer down): never from the token's content. */
    readonly more?: string,
  ) {
    super(more ? `${REFUSAL_REASONS[reason]}: ${more}` : REFUSAL_REASONS[reason]);
    this.name = 'AuthRefusal';
  }
}

/** How long a client is told to wait before trying again when the issuer is down. */
export const ISSUER_RETRY_AFTER_SECONDS = 30;

/** Extra challenge parameters (`resource_metadata`, for MCP clients). */
export type Challenge = Record<string, string>;

/**
 * The response to a refusal. `detail`, when given, replaces the reason's words (the API-key-only
 * gate keeps the body it has always answered).
 */
export function refusalResponse(
  refusal: AuthRefusal,
  challenge: Challenge = {},
  detail?: string,
): Response {
  const body = detail ?? refusal.message;
  if (refusal.reason === 'issuer_unavailable') {
    return detailResponse(503, body, { 'retry-after': String(ISSUER_RETRY_AFTER_SECONDS) });
  }
  // RFC 6750 §3.1: a request with no credentials gets no error code, only the scheme.
  const params: Challenge =
    refusal.reason === 'missing'
      ? challenge
      : { ...challenge, error: 'invalid_token', error_description: body };
  return detailResponse(401, body, { 'www-authenticate': bearerChallenge(params) });
}

/** `Bearer a="b", c="d"`, or `Bearer` with no parameters; quotes and backslashes escaped. */
export function bearerChallenge(params: Challenge): string {
  const parts = Object.entries(params).map(
    ([name, value]) =>
      `${name}="${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '')}"`,
  );
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}
