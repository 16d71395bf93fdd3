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
  /**
   * The calls of this run a person must approve before they run, by call id
   * (`approvals.ts`): asked for this turn, or still undecided from an earlier segment.
   */
  readonly awaiting: Map<string, HeldCall>;
  /** Calls whose `tool.call.completed` the turn already recorded (a rejection), by call id. */
  readonly recorded: Set<string>;
}

/**
 * A tool call held for a person's approval: what `run.interrupted` carries (reason
 * `approval`) and `pending()` lists. The same JSON everywhere (TypeScript, the event log,
 * HTTP), so its keys are the wire's.
 */
export interface HeldCall {
  /** The tool's name, as the model called it. */
  tool: string;
  /** The model's id of the call. */
  call_id: string;
  /** The call's arguments, parsed. */
  arguments: unknown;
}

/** Keyed by scope, so a ledger lives exactly as long as its run's scope. */
const ledgers = new WeakMap<RunScope, ToolLedger>();

/** The ledger of a run, created on first use. */
export function toolLedger(scope: RunScope): ToolLedger {
  let ledger = ledgers.get(scope);
  if (!ledger) {
    ledger = {
      errors: new Map(),
      outputs: new Map(),
      errorTexts: new Map(),
      awaiting: new Map(),
      recorded: new Set(),
    };
    ledgers.set(scope, ledger);
  }
  return ledger;
}

/** The calls of a stopped turn that wait for a person, in the order the engine held them. */
export function heldForApproval(
  interruptions: readonly unknown[],
  awaiting: ReadonlyMap<string, HeldCall>,
): HeldCall[] {
  const held: HeldCall[] = [];
  for (const item of interruptions) {
    const callId = callIdOf(item);
    const call = callId === undefined ? undefined : awaiting.get(callId);
    if (call) held.push(call);
  }
  return held;
}

/** The call id of an engine interruption (a `RunToolApprovalItem`). */
export function callIdOf(item: unknown): string | undefined {
  const raw = (item as { rawItem?: { callId?: unknown; id?: unknown } }).rawItem;
  return typeof raw?.callId === 'string' ? raw.callId : undefined;
}
