/**
 * Engine stream events to canonical event drafts. Text deltas come from the raw model
 * stream as they arrive (not buffered); tool calls and messages from the run items; usage
 * once per model call from its `response_done`; on the plain loop, all of these from each
 * whole response (`response`) and the tool hooks (`toolCompleted`). Message ids are ours (`<run>:m<n>`), so they
 * are stable whichever API path produced the text.
 */
import type { ModelResponse, RunStreamEvent } from '@openai/agents-core';
import { TextBlock } from '../../../core/blocks.js';
import type { UsageReported } from '../../../core/event-kinds.js';
import type { EventDraft } from '../../../core/events.js';
import { priceUsd } from '../../../core/prices.js';
import type { RunScope } from '../../../runtime/run-scope.js';
import { toolLedger } from '../compile/tool-ledger.js';

interface RawItem {
  type?: string;
  role?: string;
  callId?: string;
  name?: string;
  arguments?: string;
  content?: Array<{ type?: string; text?: string; refusal?: string }>;
}

/** A tool call the model asked for: its name and arguments, for a failure that names it. */
export interface AskedCall {
  name: string;
  arguments: unknown;
}

export class TurnTranscript {
  /** The calls asked for and not completed yet, by call id (`turn-failure.ts` reads them). */
  readonly openCalls = new Map<string, AskedCall>();
  /** The latest call asked for of each tool name. */
  readonly latestCalls = new Map<string, AskedCall>();

  constructor(
    private readonly scope: RunScope,
    private readonly modelName: string | null,
    /** Messages the run completed before this segment (a resumed turn goes on numbering). */
    private messageIndex = 0,
  ) {}

  private get messageId(): string {
    return `${this.scope.runId}:m${this.messageIndex}`;
  }

  map(event: RunStreamEvent): EventDraft[] {
    if (event.type === 'raw_model_stream_event') {
      const data = event.data as { type: string; delta?: string; response?: ResponseDone };
      if (data.type === 'output_text_delta' && data.delta) {
        return [{ kind: 'text.delta', payload: { messageId: this.messageId, text: data.delta } }];
      }
      if (data.type === 'response_done' && data.response) return [this.usage(data.response)];
      return [];
    }
    if (event.type !== 'run_item_stream_event') return [];
    const raw = (event.item as { rawItem?: RawItem }).rawItem ?? {};
    switch (event.name) {
      case 'message_output_created':
        return [this.messageCompleted(raw)];
      case 'tool_called':
        return [this.toolStarted(raw)];
      case 'tool_output':
        if (toolLedger(this.scope).recorded.has(raw.callId ?? '')) {
          this.openCalls.delete(raw.callId ?? '');
          return [];
        }
        return [this.toolCompleted(raw, (event.item as { output?: unknown }).output)];
      default:
        return [];
    }
  }

  /**
   * One whole model response, on the plain loop, as the streamed loop tells it: its text,
   * its usage (and its `model.call.completed`, when recorded), then its items (messages, and
   * tool calls before they run).
   */
  response(response: ModelResponse, completed: EventDraft | null = null): EventDraft[] {
    const drafts: EventDraft[] = [];
    for (const item of response.output as RawItem[]) {
      if (item.type !== 'message' || item.role !== 'assistant') continue;
      for (const part of item.content ?? []) {
        if (part.type === 'output_text' && part.text) {
          drafts.push({
            kind: 'text.delta',
            payload: { messageId: this.messageId, text: part.text },
          });
        }
      }
    }
    drafts.push(this.usage(response));
    if (completed) drafts.push(completed);
    for (const item of response.output as RawItem[]) {
      if (item.type === 'message' && item.role === 'assistant') {
        drafts.push(this.messageCompleted(item));
      } else if (item.type === 'function_call') {
        drafts.push(this.toolStarted(item));
      }
    }
    return drafts;
  }

  /** A tool call's output (`sent`: what went back to the model), with the error a tool recorded. */
  toolCompleted(raw: RawItem, sent: unknown): EventDraft {
    const callId = raw.callId ?? '';
    this.openCalls.delete(callId);
    const ledger = toolLedger(this.scope);
    const error =
      ledger.errors.get(callId) ??
      (typeof sent === 'string' ? ledger.errorTexts.get(sent) : undefined) ??
      null;
    const output = ledger.outputs.has(callId) ? ledger.outputs.get(callId) : sent;
    return {
      kind: 'tool.call.completed',
      payload: { callId, name: raw.name ?? '', output: error ? null : output, error },
    };
  }

  private toolStarted(raw: RawItem): EventDraft {
    const callId = raw.callId ?? '';
    const call = { name: raw.name ?? '', arguments: parseArguments(raw.arguments) };
    this.openCalls.set(callId, call);
    this.latestCalls.set(call.name, call);
    return { kind: 'tool.call.started', payload: { callId, ...call } };
  }

  private messageCompleted(raw: RawItem): EventDraft {
    const text = (raw.content ?? [])
      .map((part) => (part.type === 'output_text' ? (part.text ?? '') : (part.refusal ?? '')))
      .join('');
    const draft: EventDraft = {
      kind: 'message.completed',
      payload: { messageId: this.messageId, role: 'assistant', content: [new TextBlock(text)] },
    };
    this.messageIndex += 1;
    return draft;
  }

  private usage(response: ResponseDone): EventDraft {
    const u = response.usage ?? {};
    const inputTokens = u.inputTokens ?? 0;
    const outputTokens = u.outputTokens ?? 0;
    const payload: UsageReported = {
      model: this.modelName,
      requests: u.requests ?? 1,
      inputTokens,
      outputTokens,
      totalTokens: u.totalTokens ?? inputTokens + outputTokens,
      usd: priceUsd(this.modelName, inputTokens, outputTokens),
    };
    return { kind: 'usage.reported', payload };
  }
}

interface ResponseDone {
  usage?: { requests?: number; inputTokens?: number; outputTokens?: number; totalTokens?: number };
}

function parseArguments(args: string | undefined): unknown {
  if (args === undefined || args === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
