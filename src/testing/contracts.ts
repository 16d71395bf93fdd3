/**
 * `agentdeck/testing/contracts`: the conformance suites every store backend passes. They
 * are vitest suites (they import `vitest`), so they live apart from the test doubles in
 * `agentdeck/testing`, which work under any test runner.
 */
export { describeEventStoreContract } from './event-store-contract.js';
export { describeSessionContract, type SessionContractFactory } from './session-contract.js';
