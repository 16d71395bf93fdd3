/**
 * Counting the Postgres round trips a piece of work makes, exactly, in the bench's own
 * process: `pg`'s `Client.prototype.query` (which every pool query, transaction statement and
 * `LISTEN`/`NOTIFY` of the deck, LangGraph's `PostgresSaver` and `@mastra/pg` goes through;
 * there is one copy of `pg` in node_modules) is wrapped while counting, and each call is
 * charged to the work whose async context made it. A statement written behind (a timer or
 * `setImmediate` set up by that work) is still charged to it; a process's own timers set up
 * before (heartbeats, sweeps) are not, and are reported apart as `background`. A pool hands a
 * waiting caller its client from another query's callback, so `Pool.prototype.connect` is
 * wrapped too, to call back in the caller's context. `pg_stat_statements` would see the same
 * calls, but needs the server restarted with it.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import pg from 'pg';

/** What one piece of work sent: query calls (round trips), by the statement's opening words. */
export interface StatementCount {
  calls: number;
  /** SQL statements inside those calls (a simple query may carry several, `;`-separated). */
  statements: number;
  /** `BEGIN`, `COMMIT`, `ROLLBACK` and savepoints. */
  transactionControl: number;
  /**
   * Transactions committed that wrote (an `INSERT`, `UPDATE` or `DELETE`), explicit or a
   * statement on its own: with `synchronous_commit = on`, each waits for a WAL flush. A
   * `NOTIFY` alone writes no WAL record and does not wait (timed: as fast as `SELECT 1`).
   */
  writeCommits: number;
  /** Calls by their statement's opening words, whitespace collapsed. */
  byKind: Map<string, number>;
}

const emptyCount = (): StatementCount => ({
  calls: 0,
  statements: 0,
  transactionControl: 0,
  writeCommits: 0,
  byKind: new Map(),
});

const TRANSACTION = /^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SAVEPOINT|RELEASE)\b/i;

function sqlOf(query: unknown): string {
  if (typeof query === 'string') return query;
  const text = (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

/** The statement's kind: its first 60 characters, whitespace collapsed. */
export function statementKind(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim().slice(0, 60);
}

const WRITES = /\b(INSERT|UPDATE|DELETE|MERGE)\b/i;
const BEGINS = /^(BEGIN|START TRANSACTION)\b/i;
const ENDS = /^(COMMIT|END)\b/i;
const ROLLS_BACK = /^ROLLBACK\b(?!\s+TO)/i;

/**
 * A connection's transaction: whether one is open, and whether it has written (a
 * `SELECT ... FOR UPDATE` counts: locking a row writes WAL too).
 */
interface Transaction {
  open: boolean;
  wrote: boolean;
}

function charge(count: StatementCount, sql: string, transaction: Transaction): void {
  const statements = sql
    .split(/;\s*(?=\S)/)
    .map((part) => part.trim())
    .filter(Boolean);
  count.calls += 1;
  count.statements += Math.max(1, statements.length);
  const implicit =
    !transaction.open && !statements.some((statement) => TRANSACTION.test(statement));
  if (implicit && statements.length > 1) {
    // Several statements in one simple query, outside a transaction: one implicit transaction.
    if (statements.some((statement) => WRITES.test(statement))) count.writeCommits += 1;
    count.byKind.set(statementKind(sql), (count.byKind.get(statementKind(sql)) ?? 0) + 1);
    return;
  }
  for (const statement of statements) {
    if (TRANSACTION.test(statement)) count.transactionControl += 1;
    if (BEGINS.test(statement)) Object.assign(transaction, { open: true, wrote: false });
    else if (ENDS.test(statement) || ROLLS_BACK.test(statement)) {
      if (ENDS.test(statement) && transaction.wrote) count.writeCommits += 1;
      Object.assign(transaction, { open: false, wrote: false });
    } else if (WRITES.test(statement)) {
      if (transaction.open) transaction.wrote = true;
      else count.writeCommits += 1;
    }
  }
  const kind = statementKind(sql);
  count.byKind.set(kind, (count.byKind.get(kind) ?? 0) + 1);
}

/**
 * Count the round trips of `work` (and of everything it sets going), and those made meanwhile
 * outside it. `settleMs` after `work` resolves, statements it left behind are still charged.
 *
 * @example
 * ```ts
 * const { counted } = await countStatements(() => deck.run('three-steps', { n: 0 }), 200);
 * console.log(counted.calls); // round trips of one run, its write-behind included
 * ```
 */
export async function countStatements(
  work: () => Promise<void>,
  settleMs: number,
): Promise<{ counted: StatementCount; background: StatementCount }> {
  const context = new AsyncLocalStorage<StatementCount>();
  const counted = emptyCount();
  const background = emptyCount();
  const transactions = new WeakMap<object, Transaction>();
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const pool = pg.Pool.prototype as unknown as { connect: (...args: unknown[]) => unknown };
  const originalQuery = client.query;
  const originalConnect = pool.connect;
  const ownConnect = Object.hasOwn(pool, 'connect');
  client.query = function countedQuery(this: object, ...args: unknown[]) {
    const transaction = transactions.get(this) ?? { open: false, wrote: false };
    transactions.set(this, transaction);
    charge(context.getStore() ?? background, sqlOf(args[0]), transaction);
    return originalQuery.apply(this, args);
  };
  pool.connect = function connectInContext(this: object, callback?: unknown) {
    if (typeof callback === 'function') {
      return originalConnect.call(this, AsyncResource.bind(callback as () => void));
    }
    return new Promise((resolve, reject) => {
      originalConnect.call(
        this,
        AsyncResource.bind((error: Error | undefined, connected: unknown) =>
          error ? reject(error) : resolve(connected),
        ),
      );
    });
  };
  try {
    await context.run(counted, async () => {
      await work();
      await new Promise((resolve) => setTimeout(resolve, settleMs));
    });
  } finally {
    client.query = originalQuery;
    if (ownConnect) pool.connect = originalConnect;
    else delete (pool as { connect?: unknown }).connect;
  }
  return { counted, background };
}
