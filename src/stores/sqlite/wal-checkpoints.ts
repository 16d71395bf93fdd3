/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database
 * file and syncs it. SQLite runs one automatically inside whichever commit takes the WAL past
 * 1,000 pages, so on a busy store every few hundred commits block the event loop for
 * milliseconds: in `bench:http`, 55 of 10,970 commits took 341 ms between them (up to 18 ms
 * each), as much time as all the other commits together.
 *
 * So a busy file gets a worker thread with a connection of its own that runs a passive
 * checkpoint (which neither waits for nor blocks readers and writers) every
 * {@link CHECKPOINT_EVERY_MS}. The store's connections then checkpoint by themselves only past
 * {@link BACKSTOP_PAGES} (should the worker fall behind), and again at every 1,000 pages if
 * the worker stops. One worker per file and process, started once a store on it has committed
 * {@link WORKER_AFTER_COMMITS} times (so a short-lived store never starts one), and told to
 * stop when the last store on the file closes.
 */

import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../core/errors.js';
import { log } from '../../core/log.js';

/** Commits after which a store's file gets its checkpoint worker. */
export const WORKER_AFTER_COMMITS = 500;
/** How often the worker checkpoints. */
export const CHECKPOINT_EVERY_MS = 200;
/** WAL pages past which a store's own connection checkpoints anyway (about 80 MB). */
export const BACKSTOP_PAGES = 20_000;
/** SQLite's default automatic checkpoint, restored when the worker is gone. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;

/** The worker (CommonJS, evaluated): a connection that checkpoints passively on a timer. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { existsSync } = require('node:fs');
const { DatabaseSync } = require('node:sqlite');
let db;
let checkpoint;
try {
  // Never create the file: it may have been removed since the store asked for this worker.
  if (!existsSync(workerData.path)) throw new Error('gone');
  db = new DatabaseSync(workerData.path);
  db.exec('PRAGMA busy_timeout = 0');
  checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
} catch {
  try { db?.close(); } catch {}
  process.exit(0); // the store's connections checkpoint by themselves again
}
const timer = setInterval(() => {
  try { checkpoint.get(); } catch {} // busy, or the file is gone: the next tick tries again
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
`;

interface FileCheckpoints {
  connections: Set<DatabaseSync>;
  worker: Worker | null;
}

const files = new Map<string, FileCheckpoints>();

/** One store connection's part: counts its commits, and leaves when it closes. */
export class WalCheckpoints {
  #commits = 0;

  constructor(
    private readonly key: string,
    private readonly path: string,
    private readonly db: DatabaseSync,
    private readonly enabled: boolean,
  ) {
    if (!enabled) return;
    const file = files.get(key) ?? { connections: new Set<DatabaseSync>(), worker: null };
    files.set(key, file);
    file.connections.add(db);
    if (file.worker) setAutocheckpoint(db, BACKSTOP_PAGES);
  }

  /** After each commit of this connection: a busy file gets its worker. */
  committed(): void {
    if (!this.enabled || ++this.#commits !== WORKER_AFTER_COMMITS) return;
    const file = files.get(this.key);
    if (file && !file.worker) file.worker = startWorker(this.key, this.path, file);
  }

  /** The connection is closing: the last one on the file stops the worker. */
  close(): void {
    const file = files.get(this.key);
    if (!file?.connections.delete(this.db) || file.connections.size > 0) return;
    files.delete(this.key);
    file.worker?.postMessage('stop');
  }
}

function startWorker(key: string, path: string, file: FileCheckpoints): Worker | null {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, everyMs: CHECKPOINT_EVERY_MS },
    });
  } catch (error) {
    log.error(`[agentdeck] SQLite checkpoints stay on the event loop: ${errorMessage(error)}`);
    return null;
  }
  worker.unref(); // never what keeps a process alive
  worker.on('error', (error) => {
    if (files.get(key)?.worker !== worker) return; // stopped already: nothing left to say
    log.error(
      `[agentdeck] the SQLite checkpoint worker for '${path}' failed: ${errorMessage(error)}`,
    );
  });
  worker.on('exit', () => {
    const current = files.get(key);
    if (current?.worker !== worker) return;
    // Gone while stores are open: their connections checkpoint as SQLite does by default.
    current.worker = null;
    for (const db of current.connections) setAutocheckpoint(db, DEFAULT_AUTOCHECKPOINT_PAGES);
  });
  for (const db of file.connections) setAutocheckpoint(db, BACKSTOP_PAGES);
  return worker;
}

function setAutocheckpoint(db: DatabaseSync, pages: number): void {
  try {
    if (db.isOpen) db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
  } catch {
    // A closed or busy connection keeps its setting; it only decides who checkpoints.
  }
}
