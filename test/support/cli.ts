/**
 * Test support: how a test starts one of the package's bins (`agentdeck`, `service`,
 * `service-serve`) as a real process. From `dist/` when the build there is up to date with
 * `src/` (`.ci/run` builds before `npm test`), which starts in about half the CPU time; from
 * the sources with tsx otherwise, so a test always runs the code as it is in `src/`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(REPO_ROOT, 'node_modules/tsx/dist/esm/index.mjs');
const SRC = join(REPO_ROOT, 'src');
const DIST = join(REPO_ROOT, 'dist');

const BINS = { agentdeck: 'agentdeck', service: 'service', 'service-serve': 'serve' } as const;
export type Bin = keyof typeof BINS;

let built: boolean | undefined;

/** The Node arguments that run `bin` with `args`: `[...execArgv, entry, ...args]`. */
export function binArgs(bin: Bin, ...args: string[]): string[] {
  built ??= distIsCurrent();
  const name = BINS[bin];
  return built
    ? [join(DIST, 'surfaces/cli', `${name}.js`), ...args]
    : ['--import', TSX, join(SRC, 'surfaces/cli', `${name}.ts`), ...args];
}

/**
 * Whether dist/ was built from the sources as they are: every source file has its compiled (or
 * copied) twin there, written after it and after the build's configuration.
 */
export function distIsCurrent(): boolean {
  try {
    const config = Math.max(
      ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map(
        (file) => statSync(join(REPO_ROOT, file)).mtimeMs,
      ),
    );
    return sourceFiles(SRC).every((file) => {
      if (/\.test(-d)?\.ts$/.test(file)) return true;
      const twin = join(DIST, relative(SRC, file)).replace(/(?<!\.d)\.ts$/, '.js');
      return statSync(twin).mtimeMs >= Math.max(statSync(file).mtimeMs, config);
    });
  } catch {
    return false; // a twin is missing: not built, or built before the file was added
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : [path];
  });
}
