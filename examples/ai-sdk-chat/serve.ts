/**
 * Builds the sample's page and serves it on http://localhost:3000 (`PORT` to change it): a
 * static server for the two files of the build, nothing else. The page talks to the
 * agentdeck service on its own origin (http://localhost:8000 unless the address says
 * `?service=...`), so the service must allow this page's origin:
 * `SERVICE_CORS_ORIGINS=http://localhost:3000 npm run serve`.
 *
 *   npx tsx examples/ai-sdk-chat/serve.ts
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSample } from './build.js';

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
};

export interface ServeSampleOptions {
  /** Port to listen on; 0 picks a free one. @default 3000 */
  port?: number;
  /** Address to listen on. @default '127.0.0.1' */
  host?: string;
  /** The built page's folder (see `buildSample`). @default a fresh build in build/ai-sdk-chat/ */
  dir?: string;
}

export interface SampleServer {
  /** `http://<host>:<port>`: the page's origin. */
  origin: string;
  close(): Promise<void>;
}

/** Serve the built page; builds it first unless `dir` names a build. */
export async function serveSample(options: ServeSampleOptions = {}): Promise<SampleServer> {
  const { port = 3000, host = '127.0.0.1' } = options;
  const dir = options.dir ?? (await buildSample());
  const server: Server = createServer((request, response) => {
    const served = FILES[new URL(request.url ?? '/', 'http://page').pathname];
    if (!served || request.method !== 'GET') {
      response.writeHead(404).end();
      return;
    }
    readFile(join(dir, served.file)).then(
      (body) => response.writeHead(200, { 'content-type': served.type }).end(body),
      () => response.writeHead(500).end(`${served.file} is missing: build the page first`),
    );
  });
  await new Promise<void>((ready) => server.listen(port, host, ready));
  const bound = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${bound}`,
    close: () =>
      new Promise((done) => {
        server.close(() => done());
        server.closeAllConnections(); // a browser's idle keep-alive would hold close() open
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.PORT ?? 3000);
  await serveSample({ port });
  console.log(`the sample is on http://localhost:${port}`);
  console.log('it talks to http://localhost:8000 (another service: add ?service=<url>)');
  console.log(`serve agentdeck with SERVICE_CORS_ORIGINS=http://localhost:${port}`);
}
