/**
 * Reading runs (beyond release 1.2.1, additive): `GET /runs` (recent runs, newest first,
 * paged with a `before` cursor, or exactly with `after` and each page's `next`), `GET /runs/{run_id}` (one run with its usage) and
 * `GET /runs/{run_id}/events` (its canonical events as SSE, resumable with `Last-Event-ID`).
 */

import type { z } from 'zod';
import { idProblem } from '../../core/ids.js';
import { TERMINAL_STATUSES } from '../../core/status.js';
import type { RunCursor, RunSummary } from '../../core/store.js';
import { sumUsage, usageReports } from '../../runtime/turn-result.js';
import type { HttpDeps } from './deps.js';
import { HttpError } from './errors.js';
import { check } from './json-body.js';
import { route } from './routes.js';
import { runEventFrames } from './run-events.js';
import { Detail, EventsQuery, RunDetail, RunList, RunsQuery } from './schemas.js';
import type { QueuePlace } from './served-deck.js';
import { sseResponse } from './sse.js';

export function runRoutes(deps: HttpDeps) {
  const summaryOf = async (runId: string) => {
    const run = await deps.eventLog().getRun(runId);
    if (!run) throw new HttpError(404, `No run '${runId}'.`);
    return run;
  };
  return [
    route<undefined, z.infer<typeof RunsQuery>>({
      method: 'get',
      path: '/runs',
      role: 'read',
      summary: 'Recent runs, newest first',
      tag: 'runs',
      query: RunsQuery,
      responses: {
        200: { description: 'A page of runs.', schema: RunList },
        422: { description: 'A malformed query.', schema: Detail },
      },
      async handle({ query }) {
        const { limit, before, after, session_id, ...filter } = query;
        const cursor = after === undefined ? undefined : decodeCursor(after);
        const list = (n: number) =>
          deps.eventLog().listRuns({
            ...definedOnly({ ...filter, sessionId: session_id, startedBefore: before }),
            ...(cursor ? { after: cursor } : {}),
            limit: n,
          });
        if (cursor) {
          // Keyset paging: exact, so a page is never longer than `limit`.
          const found = await list(limit + 1);
          const page = found.slice(0, limit);
          const last = found.length > limit ? page.at(-1) : undefined;
          return Response.json({
            runs: page.map(runView),
            next_before: null,
            next: last ? encodeCursor(last) : null,
          });
        }
        let asked = limit + 1;
        let found = await list(asked);
        // Runs that all started in one millisecond are read whole: the strict `before`
        // cursor could not come back for the rest of such a group.
        while (found.length === asked && oneStart(found)) {
          asked *= 2;
          found = await list(asked);
        }
        const page = pageOf(found, limit);
        const last = found.length > limit ? page.at(-1) : undefined;
        return Response.json({
          runs: page.map(runView),
          next_before: last?.startedAt ?? null,
          next: last ? encodeCursor(last) : null,
        });
      },
    }),
    route({
      method: 'get',
      path: '/runs/{run_id}',
      role: 'read',
      summary: "A run's status, origin, session, timestamps and usage",
      tag: 'runs',
      responses: {
        200: { description: 'The run.', schema: RunDetail },
        404: { description: 'No run by that id.', schema: Detail },
      },
      async handle({ params }) {
        const run = await summaryOf(params.run_id ?? '');
        const events = await deps.eventLog().read(run.runId);
        const completed = events.findLast((e) => e.kind === 'run.completed');
        const usage =
          (completed?.kind === 'run.completed' ? completed.payload.usage : null) ??
          sumUsage(usageReports(events));
        // Read only for a queued run: every other run's detail costs no queue read.
        const place = run.status === 'queued' ? await deps.queuePlace(run.runId) : null;
        return Response.json({
          ...runView(run),
          ...(place ? { queue: queueView(place) } : {}),
          usage: {
            requests: usage.requests,
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            total_tokens: usage.totalTokens,
            usd: usage.usd,
          },
        });
      },
    }),
    route<undefined, z.infer<typeof EventsQuery>>({
      method: 'get',
      path: '/runs/{run_id}/events',
      role: 'read',
      queryToken: true,
      summary: "A run's canonical events as server-sent events",
      description:
        'One frame per event: `id: <seq>` and `data: <canonical event JSON>`. `Last-Event-ID` ' +
        '(or `?after=`) resumes after that seq; a live run keeps streaming until its terminal event.',
      tag: 'runs',
      query: EventsQuery,
      responses: {
        200: {
          description: 'The events, as server-sent events.',
          sse:
            'One frame per canonical event: `id: <seq>` and `data: <canonical event JSON>`; ' +
            'a comment frame (`: keepalive`) every 15 s while nothing happens. The stream ends ' +
            'after the terminal event, or (`?follow=false`) after the events stored so far.',
        },
        204: {
          description:
            'The run has ended and the request starts past its last event (`Last-Event-ID` ' +
            'or `?after=`): nothing more will come (an `EventSource` stops reconnecting).',
        },
        404: { description: 'No run by that id.', schema: Detail },
        422: { description: 'A malformed `after`, `follow` or `Last-Event-ID`.', schema: Detail },
      },
      async handle({ params, query, request }) {
        const run = await summaryOf(params.run_id ?? '');
        const lastEventId = request.headers.get('last-event-id');
        const afterSeq =
          lastEventId === null || lastEventId.trim() === ''
            ? (query.after ?? -1)
            : (check(EventsQuery.shape.after, lastEventId, 'header Last-Event-ID') ?? -1);
        // An ended run read from at or past its last event has nothing more, ever: 204 is how
        // SSE tells a browser's EventSource to stop reconnecting (a 200 with an empty body
        // makes it try again every few seconds, forever).
        if (TERMINAL_STATUSES.includes(run.status) && afterSeq >= run.lastSeq) {
          return new Response(null, { status: 204 });
        }
        const stop = new AbortController();
        for (const signal of [request.signal, deps.shutdown]) {
          if (signal?.aborted) stop.abort();
          signal?.addEventListener('abort', () => stop.abort(), { once: true });
        }
        const frames = runEventFrames(deps.eventLog(), run.runId, {
          afterSeq,
          follow: query.follow,
          signal: stop.signal,
        });
        return sseResponse(frames, () => stop.abort());
      },
    }),
  ];
}

/** The `next` cursor of a page ending with `run`: its start and id, base64url JSON. */
function encodeCursor(run: RunSummary): string {
  return Buffer.from(JSON.stringify([run.startedAt, run.runId])).toString('base64url');
}

function decodeCursor(text: string): RunCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      idProblem(value[0]) === null &&
      idProblem(value[1]) === null
    ) {
      return { startedAt: value[0], runId: value[1] };
    }
  } catch {
    // a malformed cursor: 422 below
  }
  throw new HttpError(
    422,
    "query parameter 'after': not a cursor this server gave (pass a page's `next`).",
  );
}

function queueView(place: QueuePlace) {
  return {
    key: place.key,
    priority: place.priority,
    position: place.position,
    attempts: place.attempts,
    enqueued_at: place.enqueuedAt,
  };
}

function runView(run: RunSummary) {
  return {
    run_id: run.runId,
    origin: run.origin,
    session_id: run.sessionId,
    namespace: run.namespace,
    status: run.status,
    started_at: run.startedAt,
    updated_at: run.updatedAt,
    last_seq: run.lastSeq,
  };
}

/**
 * The first `limit` runs, without a trailing group that shares its start time with the run
 * after the page: the `before` cursor is strict, so such a group would be skipped.
 */
function pageOf(found: RunSummary[], limit: number): RunSummary[] {
  const page = found.slice(0, limit);
  const boundary = found[limit]?.startedAt;
  if (boundary === undefined) return page;
  const trimmed = page.filter((r) => r.startedAt !== boundary);
  if (trimmed.length > 0) return trimmed;
  // The page is one group, read whole by the caller: it is the page, however long.
  return found.filter((r) => r.startedAt === boundary);
}

/** Whether every run found started in the same millisecond. */
function oneStart(found: RunSummary[]): boolean {
  return found.every((r) => r.startedAt === found[0]?.startedAt);
}

export function definedOnly<T extends object>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}
