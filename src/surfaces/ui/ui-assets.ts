/**
 * The run inspector's files: the page shell, its stylesheet and ES modules (`assets/`, plain
 * JavaScript the browser runs as is: no build step), and Preact with htm from the `htm`
 * dependency (`htm/preact/standalone.mjs`, one module of about 5 KB gzip). They are read once
 * per process and kept with their gzip form, so a request costs a map lookup: the whole UI
 * is about 60 KB on disk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface UiAsset {
  body: Uint8Array;
  gzip: Uint8Array;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where Preact and htm are served from (the modules import it by this relative name). */
export const VENDOR_MODULE = 'vendor/preact-htm.mjs';

let loaded: Map<string, UiAsset> | null = null;

/** Every asset by its path under `/ui/assets/` (`app.js`, `vendor/preact-htm.mjs`). */
export function uiAssets(): Map<string, UiAsset> {
  if (loaded) return loaded;
  const assets = new Map<string, UiAsset>();
  const dir = assetsDir();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name, asset(readFileSync(join(dir, name)), type));
  }
  assets.set(VENDOR_MODULE, asset(readFileSync(preactHtmPath()), TYPES['.mjs'] as string));
  loaded = assets;
  return assets;
}

function asset(body: Buffer, type: string): UiAsset {
  return { body, gzip: gzipSync(body, { level: 9 }), type };
}

/**
 * `assets/` beside this module: `src/surfaces/ui/assets` when run from source (tsx), and
 * `dist/surfaces/ui/assets` in the package (`npm run build` copies it there: tsc compiles
 * TypeScript only).
 */
function assetsDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'assets');
}

function preactHtmPath(): string {
  // `htm/preact/standalone` bundles Preact, its hooks and htm. Found from the package's main
  // file (`dist/htm.js`): its exports name no `package.json`, and no CommonJS standalone.
  const main = createRequire(import.meta.url).resolve('htm');
  return join(dirname(main), '../preact/standalone.mjs');
}
