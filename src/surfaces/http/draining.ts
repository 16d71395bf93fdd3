/**
 * A server draining before it exits (serve.ts, #42): from the signal on, `GET /health/ready`
 * answers 503 `{"status": "draining"}` so a load balancer stops sending, `GET /health` stays
 * 200 (the process is alive and finishing its runs), and every request that would start or
 * continue a run here is refused with 503 and `Retry-After`, for another process to take; the
 * rest (reads, run events, pause and cancel requests) is served as before. Tested in
 * src/surfaces/http/draining.test.ts.
 */
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../core/errors.js';

/** The requests that start or continue a run (POST only). */
const PLAYS_A_RUN = [
  /^\/agents\/[^/]+\/(chat|ui-chat)$/,
  /^\/workflows\/[^/]+$/,
  /^\/workflows\/[^/]+\/ui-chat$/,
  /^\/workflows\/[^/]+\/[^/]+\/resume$/,
  /^\/runs$/,
  /^\/runs\/[^/]+\/(answer|resume)$/,
  /^\/v2\/invocables\/[^/]+\/chat$/,
  /^\/v1\/(chat\/completions|responses)$/,
  /^\/a2a\/[^/]+$/,
  /^\/mcp$/,
  /^\/timers\/tick$/,
  /^\/schedules\/[^/]+\/trigger$/,
];

const DRAINING = 'this process is draining before it exits; send the request to another one';

/** Whether a request would start or continue a run. */
export function playsARun(request: Request): boolean {
  if (request.method !== 'POST') return false;
  const path = new URL(request.url).pathname.replace(/\/+$/, '') || '/';
  return PLAYS_A_RUN.some((pattern) => pattern.test(path));
}

/** The answer a draining server gives instead of the app's, or `null` to let the app answer. */
export function drainingAnswer(request: Request): Response | null {
  const headers = { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) };
  const path = new URL(request.url).pathname;
  if (request.method === 'GET' && path === '/health/ready') {
    return Response.json(
      { status: 'draining', detail: DRAINING, checks: [] },
      { status: 503, headers },
    );
  }
  if (playsARun(request)) {
    return Response.json({ detail: DRAINING }, { status: 503, headers });
  }
  return null;
}
