export { OpenAIAgentsEngine } from './engine.js';
export { McpConnections } from './mcp.js';
export { engineSettingsFromEnv, type OpenAIEngineSettings } from './settings.js';
