import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'] },
    testTimeout: 20_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'node_modules/.cache/vitest-results.json' },
    hookTimeout: 20_000,
    // Tracer keys blanked: a developer's own SERVICE_TRACER_* must not send test runs to Langfuse.
    env: {
      SERVICE_EVENTS: 'memory://',
      SERVICE_CHECKPOINT: 'memory://',
      SERVICE_TRACER_PUBLIC_KEY: '',
      SERVICE_TRACER_SECRET_KEY: '',
    },
  },
});
