/** A schema step, as every SQL backend records it in its `schema_migrations` table. */

/** One schema step. Never edit a released migration; add the next version instead. */
export interface Migration {
  /** 1, 2, 3... in order, per component. */
  version: number;
  /** A few words on what the step does, recorded with it. */
  name: string;
  /** The statements, run as one script inside the migration transaction. */
  sql: string;
}
