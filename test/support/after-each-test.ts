/**
 * Test support: clean-ups a support module registers once, at import, to run after every test
 * of every file. Vitest's `afterEach` at a module's top level would register only in the
 * first file that imports the module when files share a worker (the `unit` project runs
 * unisolated, for speed); `test/support/setup.ts` runs these instead, in every file.
 */
type Cleanup = () => Promise<void> | void;

const cleanups = new Set<Cleanup>();

/** Run `cleanup` after every test, in every test file (registered once per module). */
export function afterEachTest(cleanup: Cleanup): void {
  cleanups.add(cleanup);
}

export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups) await cleanup();
}
