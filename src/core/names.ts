/** Names derived from catalog names (tool names the model calls). */

/**
 * `Expense Report` / `expenseReport` / `expense-report` -> `expense_report`. Tool names
 * the model sees allow only letters, digits, `_` and `-`.
 */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}
