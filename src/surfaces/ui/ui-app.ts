/**
 * The run inspector under `/ui`: a page shell and its static modules, served by the same
 * app as the API (`deck.app()`, `service-serve`). The page reads and controls runs through
 * the public HTTP API like any client, with the key the user typed (kept in the tab's
 * sessionStorage), so it needs no route of its own beyond its files, and it is mounted in
 * front of the API-key gate: a file of the inspector is no secret, every run it shows is
 * behind the gate.
 *
 * `mode` (`SERVICE_UI`, `AppOptions.ui`): `on`; `read-only` (the page shows no control that
 * changes a run: answer, pause, cancel, resume; the API itself still accepts them from any
 * client holding a key); `off` (every `/ui` path is 404).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Context, Hono } from 'hono';
import { type UiAsset, uiAssets } from './ui-assets.js';

export type UiMode = 'off' | 'read-only' | 'on';

export const UI_MODES: readonly UiMode[] = ['off', 'read-only', 'on'];

/**
 * Self only: no inline script or style, no remote anything, never framed. `connect-src`
 * lets the page call the API on its own origin (the SSE streams included).
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'content-security-policy': UI_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Revalidated on each load (the ETag makes that a 304): an upgrade shows at once.
  'cache-control': 'no-cache',
  vary: 'Accept-Encoding',
};

/**
 * Register `/ui` on `app` (before the API-key gate: see the opening comment). A request
 * `readOnlyFor` picks gets the `read-only` page whatever the mode (a client beyond loopback
 * of a server with no keys, build.ts).
 */
export function mountUi(
  app: Hono,
  mode: UiMode,
  readOnlyFor: (c: Context) => boolean = () => false,
): void {
  if (mode === 'off') {
    const notFound = (c: Context) => c.json({ detail: 'Not Found' }, 404);
    app.all('/ui', notFound);
    app.all('/ui/*', notFound);
    return;
  }
  const assets = uiAssets();
  const page = shell(assets, mode);
  const readOnly = mode === 'read-only' ? page : shell(assets, 'read-only');
  const pageFor = (c: Context) => (readOnlyFor(c) ? readOnly : page);
  app.get('/ui/assets/*', (c) => {
    const name = c.req.path.slice('/ui/assets/'.length);
    const found = assets.get(name);
    return found ? send(c, found) : c.json({ detail: 'Not Found' }, 404);
  });
  // Every other path is a page of the inspector (`/ui/runs/<id>`, `/ui/inbox`): the shell
  // reads the path and shows it, so a reload or a pasted link opens the same page.
  app.get('/ui', (c) => send(c, pageFor(c)));
  app.get('/ui/*', (c) => send(c, pageFor(c)));
}

/** The shell with its mode written in (a `<meta>` the page reads before it draws). */
function shell(assets: Map<string, UiAsset>, mode: UiMode): UiAsset {
  const html = assets.get('index.html');
  if (!html) throw new Error('agentdeck UI: assets/index.html is missing from the package');
  const text = Buffer.from(html.body).toString('utf8').replace('__UI_MODE__', mode);
  const body = Buffer.from(text);
  return { body, gzip: gzipSync(body, { level: 9 }), type: html.type };
}

const etags = new WeakMap<UiAsset, string>();

function send(c: Context, asset: UiAsset): Response {
  let etag = etags.get(asset);
  if (!etag) {
    etag = etagOf(asset.body);
    etags.set(asset, etag);
  }
  const headers: Record<string, string> = { ...HEADERS, etag, 'content-type': asset.type };
  if (c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers });
  const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
  if (gzip) headers['content-encoding'] = 'gzip';
  const body = gzip ? asset.gzip : asset.body;
  headers['content-length'] = String(body.byteLength);
  return new Response(c.req.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
    headers,
  });
}

function etagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}
