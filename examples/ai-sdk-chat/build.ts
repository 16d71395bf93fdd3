/**
 * Bundles the sample's page (`chat.tsx`, React and the AI SDK) with esbuild into one folder a
 * static server can serve as is: `index.html` and `app.js`, no CDN, nothing fetched at run
 * time. The folder is `build/ai-sdk-chat/` at the repository's root (git-ignored) unless
 * another is given.
 *
 *   npx tsx examples/ai-sdk-chat/build.ts
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const HERE = import.meta.dirname;

/** Where the page is built when no folder is given. */
export const DEFAULT_OUT_DIR = resolve(HERE, '../../build/ai-sdk-chat');

/** Build the page into `outDir`; resolves to that folder. */
export async function buildSample(outDir: string = DEFAULT_OUT_DIR): Promise<string> {
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [join(HERE, 'chat.tsx')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    // React's production build: the development one warns in the console and is slower.
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  await copyFile(join(HERE, 'index.html'), join(outDir, 'index.html'));
  return outDir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`built ${await buildSample()}`);
}
