/**
 * The `@openai/agents` adapter: plays one agent turn through the engine's streamed loop and
 * yields canonical event drafts. A live turn streams from the model (`text.delta` per
 * token); a turn nobody watches live asks the model for whole replies (`whole-replies.ts`).
 */
import {
  type AgentInputItem,
  getDefaultModel,
  type RunConfig,
  Runner,
  RunState,
  ToolCallError,
} from '@openai/agents-core';
import {
  OpenAIChatCompletionsModel,
  OpenAIProvider,
  OpenAIResponsesModel,
} from '@openai/agents-openai';
import type { AgentDefinition, AgentModel } from '../../authoring/agent-definition.js';
import type { Skill } from '../../authoring/skills.js';
import { type ContentBlock, DataBlock, TextBlock } from '../../core/blocks.js';
import { ConfigError, DeckError } from '../../core/errors.js';
import type { EventDraft } from '../../core/events.js';
import type { AgentEngine, TurnRequest } from '../../runtime/agent-engine.js';
import type { EngineSpanSink } from '../../runtime/engine-spans.js';
import type { RunScope } from '../../runtime/run-scope.js';
import { compileAgent } from './compile/compile.js';
import type { Compiled, CompiledAgent } from './compiled-agent.js';
import { type ModelPath, toEngineInput } from './input.js';
import type { McpConnections } from './mcp.js';
import { playPlainTurn, relayToolEnds } from './plain-turn.js';
import {
  asItems,
  ModelCallGate,
  restoreContinuation,
  saveContinuation,
  saveInputContinuation,
} from './safe-points.js';
import {
  engineSettingsFromEnv,
  modelClient,
  modelConfigured,
  NO_MODEL_CONFIGURED,
  type OpenAIEngineSettings,
} from './settings.js';
import { SETTLE_MS, settleWithin } from './settle.js';
import { relaySpans, turnTraceMetadata } from './spans.js';
import { exportTracesToOpenAI } from './trace-processors.js';
import { TurnTranscript } from './transcript.js';
import {
  replyMode,
  replyModeProvider,
  type TurnModelCalls,
  withoutTurn,
  withWholeReplies,
} from './whole-replies.js';

/** Maximum model calls in one turn (tool loops), as the engine's default. */
const MAX_TURNS = 10;

export class OpenAIAgentsEngine implements AgentEngine {
  private readonly compiled = new WeakMap<AgentDefinition, Compiled>();
  private readonly provider: OpenAIProvider;
  private readonly runner: Runner;
  #skills: ReadonlyMap<string, Skill> = new Map();
  #mcp: McpConnections | null = null;
  #spanSink: EngineSpanSink | null = null;

  constructor(private readonly settings: OpenAIEngineSettings = engineSettingsFromEnv()) {
    const client = modelClient(settings);
    this.provider = new OpenAIProvider({
      useResponses: settings.useResponses,
      ...(client ? { openAIClient: client } : {}),
    });
    // Off unless asked for: then the engine exports its own traces to OpenAI, as documented.
    if (settings.sdkTracing) exportTracesToOpenAI();
    this.runner = this.newRunner({ tracingDisabled: !settings.sdkTracing });
  }

  /**
   * The deck's catalog, before its agents compile: the skills they may load, and the MCP
   * servers (started at open) whose tools they get. A headless engine has none.
   */
  useCatalog(catalog: { skills: ReadonlyMap<string, Skill>; mcp: McpConnections | null }): void {
    this.#skills = catalog.skills;
    this.#mcp = catalog.mcp;
  }

  /**
   * Send this engine's own spans of every turn to `sink` (an observer's `sdkSpans`), or
   * stop with `null`. Traced turns record their spans without inputs or outputs.
   */
  exportSpans(sink: EngineSpanSink | null): void {
    this.#spanSink = sink;
    relaySpans(sink);
  }

  compile(agent: AgentDefinition): Compiled {
    let compiled = this.compiled.get(agent);
    if (!compiled) {
      const mcp = this.#mcp;
      compiled = compileAgent(agent, this.settings.model, {
        skills: this.#skills,
        mcpNotes: (names) => mcp?.notesFor(names) ?? '',
      });
      // A model object of the definition answers whole replies too (a name goes through the provider).
      const engineAgent = compiled.agent;
      if (typeof engineAgent.model === 'object') engineAgent.model = replyMode(engineAgent.model);
      this.compiled.set(agent, compiled);
    }
    return compiled;
  }

  /** Why `agent` cannot play a turn here (no model configured for a model name), or `null`. */
  missingModel(agent: AgentDefinition): string | null {
    if (typeof agent.model === 'object' || modelConfigured(this.settings)) return null;
    return `agent '${agent.name}' cannot run: ${NO_MODEL_CONFIGURED}`;
  }

  async *playTurn(request: TurnRequest): AsyncGenerator<EventDraft> {
    const { agent, scope } = request;
    const missing = this.missingModel(agent);
    // Fail before any request, with what to set, rather than with the client's own error.
    if (missing) throw new ConfigError(missing);
    const { agent: compiled, ownToolsOnly } = this.compile(agent);
    if (this.#mcp && agent.mcpServers.length > 0) {
      // The servers that started; those that did not are reported on every run that needs them.
      compiled.mcpServers = this.#mcp.serversFor(agent.mcpServers);
      for (const { name, reason } of this.#mcp.failuresFor(agent.mcpServers)) {
        yield {
          kind: 'status.reported',
          payload: {
            level: 'warning',
            message: `MCP server '${name}' is unavailable (it failed to start: ${reason}); this turn runs without its tools`,
          },
        };
      }
    }
    const { input, inputLength } = await this.turnInput(request, compiled);
    const transcript = new TurnTranscript(
      scope,
      this.modelName(agent.model),
      request.messagesBefore ?? 0,
    );
    // A pause stops the engine before a model call (tools hold their own calls); a cancel
    // (the scope's signal) aborts it anywhere.
    const calls: TurnModelCalls = { whole: request.live === false, streaming: 0 };
    const gate = new ModelCallGate(request.control.pauseRequested, scope.signal, calls);
    const runner = this.runnerFor(request);
    let ended: TurnEnd | null;
    try {
      ended =
        calls.whole && ownToolsOnly && compiled.mcpServers.length === 0
          ? yield* playPlainTurn({
              runner,
              agent: compiled,
              input,
              scope,
              gate,
              calls,
              transcript,
              maxTurns: MAX_TURNS,
            })
          : yield* this.playStreamed(runner, compiled, input, gate, calls, transcript, scope);
    } catch (error) {
      throw unwrapToolError(error);
    }
    if (ended === null || gate.pause.signal.aborted || ended.interruptions.length > 0) {
      await request.control.suspend(
        ended === null
          ? // paused before a model call on the plain loop: go on from that call's input
            saveInputContinuation(gate.pausedInput ?? [], inputLength)
          : saveContinuation(ended.state, inputLength),
      );
      yield { kind: 'run.paused', payload: { reason: null } };
      return;
    }
    // The turn's part of the conversation, written once it is complete (never half a turn).
    await request.session?.addItems(ended.history.slice(inputLength) as never);
    const output = ended.finalOutput;
    yield {
      kind: 'run.completed',
      payload: {
        output: agent.outputType
          ? [new DataBlock(output ?? null)]
          : [new TextBlock(asText(output))],
        usage: null, // the runtime totals the recorded usage reports
      },
    };
  }

  /** The turn on the engine's streamed loop (read live, or an agent the plain loop does not fit). */
  private async *playStreamed(
    runner: Runner,
    compiled: CompiledAgent,
    input: string | AgentInputItem[] | RunState<never, never>,
    gate: ModelCallGate,
    calls: TurnModelCalls,
    transcript: TurnTranscript,
    scope: RunScope,
  ): AsyncGenerator<EventDraft, TurnEnd> {
    const result = await withWholeReplies(calls, () =>
      runner.run(compiled, input as never, {
        stream: true,
        ...(input instanceof RunState ? {} : { context: scope }),
        signal: gate.signal,
        maxTurns: MAX_TURNS,
        callModelInputFilter: gate.filter,
      }),
    );
    const settled = result.completed.then(
      () => undefined,
      () => undefined,
    );
    try {
      // The stream can end without throwing on abort; `completed` carries the error, if any.
      for await (const event of gate.read(result)) {
        yield* transcript.map(event);
        gate.betweenItems(event);
      }
      await result.completed;
      if (result.error) throw result.error;
      scope.signal.throwIfAborted();
    } finally {
      // Stopped early (cancel, consumer gone): let the engine finish what it is doing (it was
      // aborted) before the caller frees the session, bounded so a stuck tool cannot hold it.
      await settleWithin(settled, SETTLE_MS);
    }
    return result as unknown as TurnEnd;
  }

  /**
   * What the engine runs: a new turn's history and message (the message is written to the
   * session at once, so a failed turn still shows what was asked), or a paused turn's state.
   */
  private async turnInput(
    request: TurnRequest,
    compiled: CompiledAgent,
  ): Promise<{ input: string | AgentInputItem[] | RunState<never, never>; inputLength: number }> {
    const { agent, scope, session } = request;
    if (request.continuation !== null) {
      const { state, inputLength } = await restoreContinuation(
        compiled,
        request.continuation,
        scope,
      );
      return { input: state as never, inputLength };
    }
    const message = toEngineInput(request.input, this.pathOf(agent.model), agent.name);
    if (!session) return { input: message, inputLength: asItems(message).length };
    const history = (await session.getItems()) as unknown as AgentInputItem[];
    const items = asItems(message);
    await session.addItems(items as never);
    // A conversation's first turn is its message alone: given as is, the engine has less to copy.
    if (history.length === 0) return { input: message, inputLength: items.length };
    return { input: [...history, ...items], inputLength: history.length + items.length };
  }

  /** One turn with the engine alone: no run scope (so no context), nothing recorded. */
  async runHeadless(agent: AgentDefinition, input: readonly ContentBlock[], signal?: AbortSignal) {
    const compiled = this.compile(agent).agent;
    const items = toEngineInput(input, this.pathOf(agent.model), agent.name);
    // Called from a tool of a recorded turn, it is still none of that turn's model calls.
    return withoutTurn(() =>
      this.runner.run(compiled, items, {
        maxTurns: MAX_TURNS,
        ...(signal ? { signal } : {}),
      }),
    );
  }

  async close(): Promise<void> {
    if (this.#spanSink) this.exportSpans(null);
    await this.provider.close();
  }

  /** The shared runner, or, when spans are exported, one whose trace names this turn's run. */
  private runnerFor({ agent, scope }: TurnRequest): Runner {
    if (!this.#spanSink) return this.runner;
    return this.newRunner({
      tracingDisabled: false,
      workflowName: agent.name,
      ...(scope.sessionId !== null ? { groupId: scope.sessionId } : {}),
      traceMetadata: turnTraceMetadata(scope.runId, scope.sessionId, agent.name),
    });
  }

  /** A runner on the deck's provider (models in reply mode), telling turns their tool outputs. */
  private newRunner(config: Partial<RunConfig>): Runner {
    return relayToolEnds(
      new Runner({
        modelProvider: replyModeProvider(this.provider),
        traceIncludeSensitiveData: false,
        ...config,
      }),
    );
  }

  private pathOf(model: string | AgentModel | undefined): ModelPath {
    if (model instanceof OpenAIResponsesModel) return 'responses';
    if (model instanceof OpenAIChatCompletionsModel) return 'chat_completions';
    if (model !== undefined && typeof model !== 'string') return 'custom';
    return this.settings.useResponses ? 'responses' : 'chat_completions';
  }

  private modelName(model: string | AgentModel | undefined): string | null {
    if (typeof model === 'string') return model;
    if (model === undefined) return this.settings.model ?? getDefaultModel();
    const name = (model as { name?: unknown }).name;
    return typeof name === 'string' ? name : null;
  }
}

/** What a played turn ends with, on either loop. */
interface TurnEnd {
  state: { toString(): string };
  interruptions: unknown[];
  history: unknown[];
  finalOutput: unknown;
}

function asText(output: unknown): string {
  if (output === undefined || output === null) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/**
 * The engine wraps what a tool throws in its own ToolCallError. A tool only throws past its
 * error string for our own errors (a context of the wrong type), so those surface as themselves.
 */
function unwrapToolError(error: unknown): unknown {
  return error instanceof ToolCallError && error.error instanceof DeckError ? error.error : error;
}
