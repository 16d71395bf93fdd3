/**
 * Which streamed events are deltas of one text, and how two join: for the Responses API
 * (`response.output_text.delta` and the other `*.delta` events of a text) and for chat
 * completions (chunks that carry only `content`). The reader (`sse-reader.ts`) joins the
 * consecutive deltas of one network read.
 */

/** How one API's deltas join. */
export interface DeltaFormat {
  /**
   * Joins `next` into `previous` if both are deltas of one text (fields that change from
   * delta to delta keep their last value); says whether it did.
   */
  join(previous: unknown, next: unknown): boolean;
}

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null;
}

/** Responses stream events whose `delta` is a piece of one text. */
const RESPONSES_TEXT_DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
  'response.function_call_arguments.delta',
]);

/** Fields of a Responses delta that differ between deltas of one text. */
const PER_RESPONSES_DELTA = new Set(['delta', 'sequence_number', 'logprobs', 'obfuscation']);

function isResponsesDelta(event: unknown): event is Fields & { delta: string } {
  return (
    isRecord(event) &&
    RESPONSES_TEXT_DELTAS.has(event.type as string) &&
    typeof event.delta === 'string'
  );
}

/** Responses deltas: same type, item and part (every other field equal) join. */
export const RESPONSES_DELTAS: DeltaFormat = {
  join(previous, next) {
    if (!isResponsesDelta(previous) || !isResponsesDelta(next)) return false;
    if (Array.isArray(previous.logprobs) !== Array.isArray(next.logprobs)) return false;
    for (const key in next) {
      if (!PER_RESPONSES_DELTA.has(key) && previous[key] !== next[key]) return false;
    }
    for (const key in previous) if (!PER_RESPONSES_DELTA.has(key) && !(key in next)) return false;
    previous.delta += next.delta;
    if (next.sequence_number !== undefined) previous.sequence_number = next.sequence_number;
    if (next.obfuscation !== undefined) previous.obfuscation = next.obfuscation;
    if (Array.isArray(previous.logprobs)) {
      previous.logprobs = previous.logprobs.concat(next.logprobs as unknown[]);
    }
    return true;
  },
};

interface TextChoice {
  index: unknown;
  delta: Fields & { content: string };
}

/** The chunk's one choice, if all it carries is text (no tool call, finish, usage, logprobs). */
function textOnlyChoice(chunk: unknown): TextChoice | undefined {
  if (!isRecord(chunk) || chunk.usage != null || !Array.isArray(chunk.choices)) return undefined;
  if (chunk.choices.length !== 1) return undefined;
  const choice: unknown = chunk.choices[0];
  if (!isRecord(choice) || choice.finish_reason != null || choice.logprobs != null)
    return undefined;
  const delta = choice.delta;
  if (!isRecord(delta) || typeof delta.content !== 'string') return undefined;
  for (const key in delta) {
    if (key !== 'content' && key !== 'role' && delta[key] != null) return undefined;
  }
  return choice as unknown as TextChoice;
}

/** Chat-completion chunks that only carry text of the same choice join. */
export const CHAT_DELTAS: DeltaFormat = {
  join(previous, next) {
    const first = textOnlyChoice(previous);
    const second = textOnlyChoice(next);
    if (!first || !second || (previous as Fields).id !== (next as Fields).id) return false;
    if (first.index !== second.index) return false;
    if (second.delta.role != null && second.delta.role !== first.delta.role) return false;
    first.delta.content += second.delta.content;
    if ((next as Fields).obfuscation !== undefined) {
      (previous as Fields).obfuscation = (next as Fields).obfuscation;
    }
    return true;
  },
};
