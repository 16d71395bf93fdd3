export { OpenAIAgentsEngine } from './engine.js';
export { McpConnections } from './mcp.js';
export {
  engineSettingsFromEnv,
  modelConfigured,
  NO_MODEL_CONFIGURED,
  type OpenAIEngineSettings,
} from './settings.js';
