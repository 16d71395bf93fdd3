/**
 * What `npm pack` puts in the package: the LICENSE, the compiled code, the run inspector's
 * files (`dist/surfaces/ui/assets/`), and the sources every
 * source map points to (so a stack trace or a debugger in a user's app lands on real
 * TypeScript), and no test files. Reads `npm pack --dry-run --json` after `npm run build`
 * (which `.ci/run` does first).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const built = existsSync(join(ROOT, 'dist/index.js'));

describe.skipIf(!built)(
  `the packed package ${built ? '' : '(skipped: run npm run build first)'}`,
  () => {
    it('carries the LICENSE, no tests, and the source of every source map', async () => {
      const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], {
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
      });
      const [pack] = JSON.parse(stdout) as [{ files: { path: string }[] }];
      const files = new Set(pack.files.map((file) => file.path));
      expect(files.has('LICENSE')).toBe(true);
      // The guides the README links to, and the changelog (not the screenshots: kept small).
      expect(files.has('docs/getting-started.md')).toBe(true);
      expect(files.has('CHANGELOG.md')).toBe(true);
      expect([...files].filter((path) => path.endsWith('.png'))).toEqual([]);
      expect(files.has('dist/index.js')).toBe(true);
      // The run inspector's files, copied beside its compiled module by `npm run build`.
      for (const asset of ['index.html', 'main.js', 'app.css', 'runs-page.js', 'run-page.js']) {
        expect(files.has(`dist/surfaces/ui/assets/${asset}`), asset).toBe(true);
      }
      expect([...files].filter((path) => /\.test(-d)?\.ts$/.test(path))).toEqual([]);
      const maps = [...files].filter((path) => path.endsWith('.js.map'));
      expect(maps.length).toBeGreaterThan(50);
      const missing: string[] = [];
      for (const map of maps) {
        const { sources } = JSON.parse(readFileSync(join(ROOT, map), 'utf8')) as {
          sources: string[];
        };
        for (const source of sources) {
          const path = posix.normalize(posix.join(dirname(map), source));
          if (!files.has(path)) missing.push(`${map} -> ${path}`);
        }
      }
      expect(missing).toEqual([]);
    }, 60_000);
  },
);
