/**
 * A local HTTP server standing in for Langfuse's OTLP ingestion endpoint
 * (`POST /api/public/otel/v1/traces`, OTLP/HTTP JSON). It records every request and
 * flattens the received spans, with their attributes decoded, for assertions.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string } | undefined;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

export interface OtlpServer {
  url: string;
  requests: ReceivedRequest[];
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function otlpServer(): Promise<OtlpServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((r) => spansOf(r.body)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function spansOf(body: string): ReceivedSpan[] {
  const parsed = JSON.parse(body) as {
    resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
  };
  return (parsed.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        traceId: span.traceId as string,
        spanId: span.spanId as string,
        parentSpanId: (span.parentSpanId as string | undefined) || undefined,
        name: span.name as string,
        startTimeUnixNano: String(span.startTimeUnixNano),
        endTimeUnixNano: String(span.endTimeUnixNano),
        attributes: Object.fromEntries(
          ((span.attributes ?? []) as { key: string; value: OtlpValue }[]).map((a) => [
            a.key,
            decode(a.value),
          ]),
        ),
        status: span.status as ReceivedSpan['status'],
      })),
    ),
  );
}

function decode(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decode);
  return undefined;
}
