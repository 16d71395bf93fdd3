import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../src/stores/sqlite/events.js';
import type { NewEvent } from '../src/core/events.js';
const store = new SqliteEventStore({ path: join(mkdtempSync(join(tmpdir(), 'p-')), 's.db') });
const env = { runId: 'r', sessionId: 's1', namespace: null, origin: 'bench' };
await store.append([{ ...env, kind: 'run.started', payload: { invocableType: 'agent', input: [] } }]);
for (let k = 0; k < 3; k++) {
  const t = performance.now(); const c = process.cpuUsage();
  for (let i = 0; i < 10000; i++) {
    const e: NewEvent = { ...env, kind: 'text.delta', payload: { messageId: 'm', text: ` t${i}` } };
    await store.append([e]);
  }
  const u = process.cpuUsage(c);
  console.log(Math.round(10000 / (performance.now() - t) * 1000), 'user', u.user/10000, 'sys', u.system/10000);
}
