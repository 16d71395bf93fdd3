/**
 * agentdeck: one catalog, one runtime, every run recorded as canonical events.
 * The public API, listed by name (a test pins it).
 */
// First: an older Node.js stops here with a message saying which one is needed.
import './node-check.js';

export { Agent, type AgentOptions, type AsToolOptions } from './authoring/agent.js';
export type {
  AgentHooks,
  AgentModel,
  AgentModelSettings,
  Instructions,
} from './authoring/agent-definition.js';
export {
  Context,
  type ContextClass,
  type ContextRequirement,
  needsContext,
  oneOf,
  protocol,
  type RequiredType,
  typeParameter,
} from './authoring/context.js';
export type { HistoryPolicy } from './authoring/history-policy.js';
export {
  type HttpServerConfig,
  MCP,
  type McpOption,
  type McpServerConfig,
  type StdioServerConfig,
} from './authoring/mcp.js';
export {
  type CatchUpPolicy,
  type OverlapPolicy,
  Schedule,
  type ScheduleOptions,
} from './authoring/schedule.js';
export {
  type JudgeScorerOptions,
  judgeScorer,
  type Score,
  type ScoreInput,
  Scorer,
  type ScorerOptions,
  type ScoreValue,
} from './authoring/scorer.js';
export { type Skill, Skills, type SkillsOption } from './authoring/skills.js';
export {
  type AgentTool,
  type BuiltTool,
  type DeckTool,
  type ToolApproval,
  type ToolOptions,
  tool,
} from './authoring/tool.js';
export type { AgentVariant } from './authoring/variant.js';
export { Workflow, type WorkflowOptions } from './authoring/workflow.js';
export type { CheckpointDurability, GraphBuilder } from './authoring/workflow-definition.js';
export type { AnswerShape, JsonSchemaObject } from './core/answer-schema.js';
export {
  type AgentInput,
  AudioBlock,
  type ContentBlock,
  DataBlock,
  ImageBlock,
  INLINE_BLOCK_LIMIT_BYTES,
  ResourceBlock,
  TextBlock,
} from './core/blocks.js';
export {
  BlockTooLargeError,
  ConfigError,
  ConflictError,
  ContextTypeError,
  DeckClosedError,
  DeckError,
  type DeckErrorCode,
  InvalidInputError,
  isDeckError,
  NotFoundError,
  NotOpenError,
  RateLimitedError,
  RunCancelledError,
  RunFailedError,
  StoreError,
} from './core/errors.js';
export type * from './core/event-kinds.js';
export type { WireEvent } from './core/event-schema.js';
export {
  EVENT_SCHEMA_VERSION,
  type Event,
  type EventEnvelope,
  type EventOf,
  isTerminal,
  type KnownEvent,
  parseEvent,
  toWire,
  type UnknownEvent,
} from './core/events.js';
export { InterruptResult, isInterrupt, type WorkflowResult } from './core/interrupt-result.js';
export type { Logger } from './core/log.js';
export { type ModelCall, type ModelCallRecording, modelCallsOf } from './core/model-calls.js';
export { MODEL_PRICES, type ModelPrice } from './core/prices.js';
export type {
  ConversationSession,
  SessionFactory,
  SessionItem,
  SharedHistorySession,
} from './core/sessions.js';
export { foldStatus, type RunStatus } from './core/status.js';
export type {
  ClaimHolder,
  ClaimRequest,
  ClaimResult,
  Claims,
  Continuations,
  ControlRequest,
  ControlRequests,
  EventLog,
  EventStore,
  ListRunsFilter,
  NamespaceListing,
  PrunedRun,
  PruneRequest,
  ReadOptions,
  RunBoundaries,
  RunIdSearch,
  RunIndex,
  RunPruning,
  RunSummary,
} from './core/store.js';
export { SLEEP_UNTIL_KEY, type SleepRequest, type TimerPayload } from './core/wakeups.js';
export { Deck, type DeckState } from './deck/deck.js';
export type {
  DeckEvals,
  EvalsTenant,
  ExperimentOptions,
  ExperimentResult,
  ExperimentSummary,
  ExperimentView,
  NewDataset,
} from './deck/evals.js';
export type { ForkOptions, ForkResult } from './deck/forks.js';
export type {
  AnswerOptions,
  ControlOptions,
  DeckAgent,
  DeckOptions,
  OpenOptions,
  ProjectOptions,
  ResumeOptions,
  TenantOption,
} from './deck/options.js';
export type { PendingItem } from './deck/pending.js';
export type { ReplayOptions, ReplayResult } from './deck/replays.js';
export type { ScheduleHandle } from './deck/schedule-ops.js';
export {
  type InterruptOptions,
  interrupt,
  sleepUntil,
  withContext,
} from './engines/langgraph/index.js';
export {
  ConsoleObserver,
  type ConsoleObserverOptions,
  type LineSink,
} from './observers/console.js';
export {
  type EngineSpanObserver,
  isObserver,
  type Observer,
  wantsEngineSpans,
} from './observers/observer.js';
export type { ApprovalAnswer } from './runtime/agent-engine.js';
export type { EngineSpan } from './runtime/engine-spans.js';
export type {
  EndedStatus,
  PrunedThread,
  PruneOptions,
  PruneReport,
} from './runtime/retention.js';
export type { RunOptions } from './runtime/run-player.js';
export type { FireOutcome, ScheduleStatus } from './runtime/schedules.js';
export type { TickOutcome } from './runtime/timers.js';
export type { TurnResult } from './runtime/turn-result.js';
export type { DueThread, ThreadCheckpoint, WorkflowState } from './runtime/workflow-engine.js';
