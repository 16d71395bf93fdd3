import { MemoryEventStore } from '../src/stores/memory/events.js';
import type { NewEvent } from '../src/core/events.js';
const store = new MemoryEventStore();
const env = { runId: 'r', sessionId: 's1', namespace: null, origin: 'bench' };
for (let k = 0; k < 3; k++) {
  const t = performance.now();
  for (let i = 0; i < 100000; i++) {
    const e: NewEvent = { ...env, kind: 'text.delta', payload: { messageId: 'm', text: ` t${i}` } };
    await store.append([e]);
  }
  console.log(Math.round(100000 / (performance.now() - t) * 1000));
}
