/** The in-process backend: the reference implementation of the store ports. */
export { DEFAULT_LIST_LIMIT } from '../../core/store.js';
export { MemoryEventStore } from './events.js';
