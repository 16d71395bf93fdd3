/**
 * `agentdeck/testing`: test doubles for testing your own agents without a real model.
 *
 * - {@link ScriptedModel}: an in-process `Model` to pass as an agent's `model`.
 * - {@link scriptedModelServer}: an OpenAI-compatible HTTP server for code that builds its own
 *   OpenAI client or model provider.
 *
 * Both consume the same script: a list of {@link ScriptedStep}s, one per model call.
 */
export {
  DEFAULT_SCRIPTED_USAGE,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedUsage,
} from './script.js';
export { ScriptedModel, type ScriptedModelOptions } from './scripted-model.js';
export {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  scriptedModelServer,
} from './scripted-model-server.js';
