/** The in-process backend: the reference implementation of the store ports. */
export { DEFAULT_LIST_LIMIT, MemoryEventStore } from './events.js';
