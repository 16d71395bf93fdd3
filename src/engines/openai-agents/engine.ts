/**
 * The `@openai/agents` adapter, its entry: `OpenAIAgentsEngine` plays one agent turn on the
 * engine and yields canonical event drafts. It compiles each definition once (`compile/`,
 * shared by every turn of that definition), builds the turn's input (a new message with its
 * history, or a paused turn's continuation), plays it on the loop `chooseTurnLoop` picks
 * (`turn/loop-choice.ts`, whose header has the table: a live turn on the streamed loop with a
 * streamed model, a turn nobody reads live on the plain loop or on the streamed loop with
 * whole replies), and ends it the same way on either loop: `run.paused` after saving its
 * continuation, or the conversation written once and `run.completed`. The model's stream is
 * read by `model-stream/`; the state a turn shares with its model calls and tools is in
 * `turn/turn-context.ts`.
 */
import { type AgentInputItem, getDefaultModel, type RunConfig, Runner } from '@openai/agents-core';
import {
  OpenAIChatCompletionsModel,
  OpenAIProvider,
  OpenAIResponsesModel,
} from '@openai/agents-openai';
import type { AgentDefinition, AgentModel } from '../../authoring/agent-definition.js';
import { type HistoryPolicy, selectHistory } from '../../authoring/history-policy.js';
import type { Skill } from '../../authoring/skills.js';
import { type ContentBlock, DataBlock, TextBlock } from '../../core/blocks.js';
import { ConfigError } from '../../core/errors.js';
import type { EventDraft } from '../../core/events.js';
import { hasSharedHistory } from '../../core/sessions.js';
import type { AgentEngine, HistoryMessage, TurnRequest } from '../../runtime/agent-engine.js';
import type { EngineSpanSink } from '../../runtime/engine-spans.js';
import { approvalReasonSchema } from './compile/approvals.js';
import { addCallerInstructions, callerInstructions } from './compile/caller-instructions.js';
import { compileAgent } from './compile/compile.js';
import { heldForApproval, toolLedger } from './compile/tool-ledger.js';
import type { Compiled, CompiledAgent } from './compiled-agent.js';
import type { McpConnections } from './mcp.js';
import {
  engineSettingsFromEnv,
  modelClient,
  modelConfigured,
  NO_MODEL_CONFIGURED,
  type OpenAIEngineSettings,
} from './settings.js';
import { relaySpans, turnTraceMetadata } from './spans.js';
import { exportTracesToOpenAI } from './trace-processors.js';
import { type ModelPath, toEngineInput } from './turn/input.js';
import { chooseTurnLoop } from './turn/loop-choice.js';
import { ModelCallLog } from './turn/model-call-log.js';
import {
  asItems,
  ModelCallGate,
  restoreContinuation,
  saveContinuation,
  saveInputContinuation,
} from './turn/safe-points.js';
import { TurnTranscript } from './turn/transcript.js';
import { relayToolEnds, withoutTurn } from './turn/turn-context.js';
import { explainTurnFailure } from './turn/turn-failure.js';
import type { TurnEnd, TurnInput } from './turn/turn-loop.js';
import { replyMode, replyModeProvider } from './turn/whole-replies.js';

/** Maximum model calls in one turn (tool loops), as the engine's default. */
const MAX_TURNS = 10;

export class OpenAIAgentsEngine implements AgentEngine {
  private readonly compiled = new WeakMap<AgentDefinition, Compiled>();
  private readonly provider: OpenAIProvider;
  private readonly runner: Runner;
  #skills: ReadonlyMap<string, Skill> = new Map();
  #mcp: McpConnections | null = null;
  #spanSink: EngineSpanSink | null = null;
  #history: HistoryPolicy | undefined;

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
   * The deck's catalog, before its agents compile: the skills they may load, the MCP
   * servers (started at open) whose tools they get, and the deck's history policy. A
   * headless engine has none.
   */
  useCatalog(catalog: {
    skills: ReadonlyMap<string, Skill>;
    mcp: McpConnections | null;
    /** The history policy of agents without their own. @default the full history */
    history?: HistoryPolicy | undefined;
  }): void {
    this.#skills = catalog.skills;
    this.#mcp = catalog.mcp;
    this.#history = catalog.history;
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
    const compiled = this.compile(agent);
    const engineAgent = compiled.agent;
    if (this.#mcp && agent.mcpServers.length > 0) {
      // Started here when the deck left them to their first use; at once when they already are.
      await this.#mcp.open();
      // The servers that started; those that did not are reported on every run that needs them.
      engineAgent.mcpServers = this.#mcp.serversFor(agent.mcpServers);
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
    const { input, inputLength, history, rejected } = await this.turnInput(request, engineAgent);
    if (rejected) yield rejected;
    const modelName = this.modelName(agent.model);
    const transcript = new TurnTranscript(scope, modelName, request.messagesBefore ?? 0);
    const recording = request.recordModelCalls ?? 'off';
    const modelCalls =
      recording === 'off'
        ? undefined
        : new ModelCallLog(
            scope.runId,
            recording === 'on' ? 'full' : 'metadata',
            modelName,
            request.modelCallsBefore,
          );
    const loop = chooseTurnLoop(request.live !== false, compiled);
    // A pause stops the engine at a safe point (tools hold their own calls); a cancel (the
    // scope's signal) aborts it anywhere.
    const gate = new ModelCallGate(request.control.pauseRequested, scope.signal);
    const runner = this.runnerFor(request);
    let ended: TurnEnd | null;
    try {
      ended = yield* loop.play({
        runner,
        agent: engineAgent,
        input,
        history,
        scope,
        gate,
        transcript,
        maxTurns: MAX_TURNS,
        modelCalls,
      });
    } catch (error) {
      throw explainTurnFailure(error, transcript);
    }
    if (ended === null || gate.pause.signal.aborted || ended.interruptions.length > 0) {
      // Calls a person must approve win over a pause: the run waits for the answer.
      const awaiting = ended
        ? heldForApproval(ended.interruptions, toolLedger(scope).awaiting)
        : [];
      await request.control.suspend(
        ended === null
          ? // paused before a model call on the plain loop: go on from that call's input
            saveInputContinuation(
              gate.pausedInput ?? [],
              inputLength,
              history,
              callerInstructions(scope),
            )
          : saveContinuation(
              ended.state,
              inputLength,
              history,
              awaiting,
              callerInstructions(scope),
            ),
      );
      const [asked] = awaiting;
      const answerSchema = asked && approvalReasonSchema(agent, asked.tool);
      yield asked
        ? {
            kind: 'run.interrupted',
            payload: {
              reason: 'approval',
              payload: asked,
              threadId: scope.sessionId ?? scope.runId,
              ...(answerSchema ? { answerSchema } : {}),
            },
          }
        : { kind: 'run.paused', payload: { reason: null } };
      return;
    }
    // The turn's part of the conversation, written once it is complete (never half a turn).
    await request.session?.addItems(ended.history.slice(inputLength));
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

  /**
   * What the engine runs: a new turn's message (written to the session at once, so a failed
   * turn still shows what was asked) and the history sent before it, chosen by the agent's
   * history policy; or a paused turn's state and the history it was sent. The history is
   * kept out of the engine's input (`turn/turn-context.ts` rule 5): `inputLength` counts the
   * engine's input alone.
   */
  private async turnInput(
    request: TurnRequest,
    compiled: CompiledAgent,
  ): Promise<{
    input: TurnInput;
    inputLength: number;
    history: readonly AgentInputItem[];
    rejected?: EventDraft | null | undefined;
  }> {
    const { agent, scope, session } = request;
    if (request.continuation !== null) {
      const restored = await restoreContinuation(
        compiled,
        request.continuation,
        scope,
        request.answer,
      );
      addCallerInstructions(scope, restored.instructions);
      const { state, inputLength, history, rejected } = restored;
      return { input: state, inputLength, history, rejected };
    }
    addCallerInstructions(scope, request.instructions);
    const message = toEngineInput(request.input, this.pathOf(agent.model), agent.name);
    const items = asItems(message);
    // The caller's earlier messages (a stateless API call) come after the session's own.
    const given = (request.history ?? []).map(historyItem);
    const policy = agent.history ?? this.#history;
    if (!session) {
      const history = given.length > 0 ? await selectHistory(given, policy) : [];
      return { input: message, inputLength: items.length, history: history as AgentInputItem[] };
    }
    // Shared and parsed once where the backend can (SQLite): not the whole history each turn.
    const stored = hasSharedHistory(session)
      ? await session.getSharedItems()
      : await session.getItems();
    await session.addItems([...given, ...items]);
    const all = given.length > 0 ? [...stored, ...given] : stored;
    const history = await selectHistory(all, policy);
    return { input: message, inputLength: items.length, history: history as AgentInputItem[] };
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

/** A caller's earlier message as the engine's input item. */
function historyItem(message: HistoryMessage): AgentInputItem {
  if (message.role === 'user') return { type: 'message', role: 'user', content: message.text };
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: message.text }],
  };
}

function asText(output: unknown): string {
  if (output === undefined || output === null) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}
