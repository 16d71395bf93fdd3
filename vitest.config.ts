import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The `int` project: tests that need the local Postgres or Redis, start database servers of
 * their own, or drive a browser. Everything else is `unit` (`npm run test:unit`), which runs
 * with none of them there. `vitest run` (in `npm test`, which `.ci/run` calls) runs both.
 */
const INTEGRATION = ['**/*.int.test.ts', 'test/faults/**/*.test.ts', 'test/browser/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    unstubEnvs: true,
    setupFiles: ['test/support/setup.ts'],
    hookTimeout: 20_000,
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
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION],
          typecheck: {
            enabled: true,
            include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
          },
        },
      },
      { extends: true, test: { name: 'int', include: INTEGRATION } },
    ],
  },
});
