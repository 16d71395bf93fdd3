/**
 * The tables of the Postgres event store's migration 9 (migrations.ts): datasets, their items
 * and experiments (evals.ts, core/evals.ts). Kept apart so migrations.ts stays short; never
 * edit it once released (add the next migration instead).
 */
export const EVALS_TABLES = `
      CREATE TABLE eval_datasets (
        namespace TEXT NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        description TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (namespace, name)
      );
      CREATE TABLE eval_items (
        namespace TEXT NOT NULL,
        dataset TEXT NOT NULL,
        position INTEGER NOT NULL,
        id TEXT NOT NULL,
        input TEXT NOT NULL,
        reference TEXT NOT NULL,
        run_id TEXT,
        PRIMARY KEY (namespace, dataset, position)
      );
      CREATE TABLE eval_experiments (
        id TEXT PRIMARY KEY,
        ord BIGINT GENERATED ALWAYS AS IDENTITY,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        dataset TEXT NOT NULL,
        target_type TEXT NOT NULL,
        target_name TEXT NOT NULL,
        variant TEXT NOT NULL,
        scorers TEXT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        created_at TEXT COLLATE "C" NOT NULL
      );
      CREATE INDEX eval_experiments_by_namespace ON eval_experiments (namespace, created_at);
      CREATE TABLE eval_experiment_items (
        experiment_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        run_id TEXT,
        PRIMARY KEY (experiment_id, position)
      );
`;
