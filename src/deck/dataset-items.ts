/**
 * Dataset items (#41, docs/evals.md): made from recorded runs (their input, and their output
 * as the reference) or given by a caller (`{input, reference?}`), and turned back into what a
 * run plays. An agent's input is kept as the message text, or as the content blocks in their
 * wire form when it is not one text block; a workflow's is its initial state object. An
 * output is kept the same way: an agent's final text, or its structured output; a workflow's
 * final state.
 */
import { type AgentInput, type ContentBlock, joinedText } from '../core/blocks.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import type { NewDatasetItem } from '../core/evals.js';
import { blockFromWire, blockToWire, type Event } from '../core/events.js';
import type { EventLog } from '../surfaces/http/served-deck.js';

/** An item as a caller gives it. */
export interface DatasetItemInput {
  input: unknown;
  /** The expected output. @default null */
  reference?: unknown;
}

const newItemId = () => `item_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** Callers' items, checked: each an object with an `input`; InvalidInputError naming the item. */
export function itemsFromInput(items: unknown, field = 'items'): NewDatasetItem[] {
  if (items === undefined) return [];
  if (!Array.isArray(items)) {
    throw new InvalidInputError(`${field} must be an array of {"input", "reference"?} objects`);
  }
  return items.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item) || !('input' in item)) {
      throw new InvalidInputError(
        `${field}[${index}] must be an object with an "input" (and optionally a "reference")`,
      );
    }
    const { input, reference } = item as DatasetItemInput;
    if (input === undefined || input === null) {
      throw new InvalidInputError(`${field}[${index}].input is missing; give the input to play`);
    }
    return { id: newItemId(), input, reference: reference ?? null, runId: null };
  });
}

/**
 * One item per recorded run: its input and its output as the reference, in the order given.
 * NotFoundError naming a run the caller's log does not have; InvalidInputError for one that
 * has not completed (it has no output to keep).
 */
export async function itemsFromRuns(
  log: EventLog,
  runIds: unknown,
  field = 'runs',
): Promise<NewDatasetItem[]> {
  if (runIds === undefined) return [];
  if (!Array.isArray(runIds) || runIds.some((id) => typeof id !== 'string' || id === '')) {
    throw new InvalidInputError(`${field} must be an array of run ids`);
  }
  const items: NewDatasetItem[] = [];
  for (const runId of runIds as string[]) {
    const events = await log.read(runId);
    const started = events.find((e) => e.kind === 'run.started');
    if (started?.kind !== 'run.started') {
      throw new NotFoundError(`${field}: no run '${runId}' in the event log`);
    }
    const ended = events.find((e) => e.kind === 'run.completed');
    if (ended?.kind !== 'run.completed') {
      throw new InvalidInputError(
        `${field}: run '${runId}' has not completed, so it has no output to keep as the reference; pick completed runs`,
      );
    }
    const workflow = started.payload.invocableType === 'workflow';
    items.push({
      id: newItemId(),
      input: workflow ? stateOf(started.payload.input) : messageOf(started.payload.input),
      reference: outputOf(ended.payload.output, workflow),
      runId,
    });
  }
  return items;
}

/** An agent message as kept: its text, or its blocks in their wire form. */
export function messageOf(blocks: readonly ContentBlock[]): unknown {
  const [only] = blocks;
  if (blocks.length === 1 && only?.type === 'text') return only.text;
  return blocks.map(blockToWire);
}

/** A workflow's state from its one DataBlock. */
function stateOf(blocks: readonly ContentBlock[]): unknown {
  const [only] = blocks;
  return only?.type === 'data' ? only.data : blocks.map(blockToWire);
}

/** A run's output as kept: text, a structured output or a final state, else the wire blocks. */
export function outputOf(blocks: readonly ContentBlock[], workflow: boolean): unknown {
  if (blocks.length > 0 && blocks.every((b) => b.type === 'text')) return joinedText(blocks);
  const [only] = blocks;
  if (blocks.length === 1 && only?.type === 'data') return only.data;
  if (workflow && blocks.length === 0) return null;
  return blocks.map(blockToWire);
}

/** What an agent plays for an item's input: the text, or the blocks from their wire form. */
export function agentInputOf(input: unknown, where: string): AgentInput {
  if (typeof input === 'string') return input;
  if (Array.isArray(input)) {
    try {
      return input.map((block) => blockFromWire(block));
    } catch (error) {
      throw new InvalidInputError(`${where}: its input is not content blocks`, { cause: error });
    }
  }
  throw new InvalidInputError(
    `${where}: an agent plays a text or content blocks, not ${JSON.stringify(input)}; use a dataset made for an agent`,
  );
}

/** What a workflow plays for an item's input: its initial state object. */
export function workflowInputOf(input: unknown, where: string): Record<string, unknown> {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    return input as Record<string, unknown>;
  }
  throw new InvalidInputError(
    `${where}: a workflow plays an initial state object, not ${JSON.stringify(input)}; use a dataset made for a workflow`,
  );
}

/** The events of a run that matter to a result, found once. */
export function runEnding(events: readonly Event[]) {
  const started = events.find((e) => e.kind === 'run.started');
  const ended = events.find(
    (e) => e.kind === 'run.completed' || e.kind === 'run.failed' || e.kind === 'run.cancelled',
  );
  return { started, ended };
}
