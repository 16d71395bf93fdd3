/**
 * Test support: an agent whose one tool needs approval and, once approved, runs until the test
 * releases it, so a test can act while an answer is still playing (no timers). Shared by the
 * tests of repeated approvals (src/deck/tool-approvals.test.ts, src/surfaces/http/inbox.test.ts).
 */
import { z } from 'zod';
import { Agent, tool } from '../../src/index.js';

/** `Dispatcher` with a held `ship` tool; `running` settles when the call starts. */
export function heldShipping() {
  let started = () => {};
  let release = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const shipped: string[] = [];
  const ship = tool({
    name: 'ship',
    description: 'Ship an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: async ({ order }) => {
      started();
      await released;
      shipped.push(order);
      return `shipped ${order}`;
    },
  });
  const agent = new Agent({ name: 'Dispatcher', tools: [ship] });
  return { agent, running, release, shipped };
}
