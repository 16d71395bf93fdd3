/**
 * What our tools did in one run, kept by the adapter beside the run's scope (the runtime's
 * `RunScope` knows nothing of it): `tool.call.completed` reports the tool's own value and
 * error, not only the text the engine sent back to the model.
 */
import type { RunScope } from '../../../runtime/run-scope.js';

export interface ToolLedger {
  /** Errors thrown by our tools, by call id. */
  readonly errors: Map<string, string>;
  /** The value each of our tools returned, by call id (before JSON encoding for the model). */
  readonly outputs: Map<string, unknown>;
  /**
   * Errors the engine reported without a call id (it redacts the call of invalid
   * arguments): the exact text sent to the model -> the error message.
   */
  readonly errorTexts: Map<string, string>;
}

/** Keyed by scope, so a ledger lives exactly as long as its run's scope. */
const ledgers = new WeakMap<RunScope, ToolLedger>();

/** The ledger of a run, created on first use. */
export function toolLedger(scope: RunScope): ToolLedger {
  let ledger = ledgers.get(scope);
  if (!ledger) {
    ledger = { errors: new Map(), outputs: new Map(), errorTexts: new Map() };
    ledgers.set(scope, ledger);
  }
  return ledger;
}
