export { OpenAIAgentsEngine } from './engine.js';
export { engineSettingsFromEnv, type OpenAIEngineSettings } from './settings.js';
