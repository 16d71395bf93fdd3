/** Types of json-schema-check.js (plain JavaScript the browser runs), for its tests. */
export interface SchemaError {
  path: string;
  message: string;
}
export function schemaErrors(schema: unknown, value: unknown): SchemaError[];
export function sampleOf(schema: unknown): unknown;
