/**
 * What the deck uses of the `@openai/agents` adapter: the engine, the MCP connections it
 * opens, and the engine settings. The adapter's wings (`compile/`, `turn/`, `model-stream/`)
 * are its own; `engine.ts` is where to start reading.
 */
export { OpenAIAgentsEngine } from './engine.js';
export { McpConnections } from './mcp.js';
export {
  engineSettingsFromEnv,
  modelConfigured,
  NO_MODEL_CONFIGURED,
  type OpenAIEngineSettings,
} from './settings.js';
