import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects (CONTRIBUTING.md, "Tests"):
 * - `unit`: the tests beside the code (`src/`), in-process; needs no database server.
 *   `npm run check` runs it.
 * - `processes`: `test/`, real processes of the package's bins, packaging, the docs' samples;
 *   needs no database server either.
 * - `int`: tests that need the local Postgres or Redis, start database servers of their own,
 *   or drive a browser.
 * `vitest run` (in `npm test`, which `.ci/run` calls) runs all three.
 *
 * Files share their workers (`isolate: false`) but in `int`: loading the library is most of
 * what a small file costs, and a shared worker loads it once. `test/support/setup.ts` makes a
 * file that leaves something behind fail there. More workers than cores: most of a process
 * or browser test is waiting for another process, so 2 cores keep 4 files busy.
 * Type-level tests (`*.test-d.ts`) are checked by `npm run typecheck` (tsc over src/ and test/).
 */
const INTEGRATION = ['**/*.int.test.ts', 'test/faults/**/*.test.ts', 'test/browser/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    maxWorkers: Math.max(4, availableParallelism()),
    unstubEnvs: true,
    setupFiles: ['test/support/setup.ts'],
    // One report for the run, whichever projects it ran (.ci/run reads it).
    reporters: ['default', 'json'],
    outputFile: { json: 'node_modules/.cache/vitest-results.json' },
    // Tracer keys blanked: a developer's own SERVICE_TRACER_* must not send test runs to Langfuse.
    env: {
      SERVICE_EVENTS: 'memory://',
      SERVICE_CHECKPOINT: 'memory://',
      SERVICE_TRACER_PUBLIC_KEY: '',
      SERVICE_TRACER_SECRET_KEY: '',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          isolate: false,
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION],
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION],
        },
      },
      { extends: true, test: { name: 'int', include: INTEGRATION } },
    ],
  },
});
