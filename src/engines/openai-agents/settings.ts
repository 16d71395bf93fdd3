/**
 * Engine settings read from the environment when an engine is made (a deck's when it opens,
 * a headless run's for that run), and the OpenAI client built from them, its streams read
 * by `model-stream/`. `Agent.model` wins over `OPENAI_MODEL`.
 */
import OpenAI from 'openai';
import { ConfigError } from '../../core/errors.js';
import { withQuickStreams } from './model-stream/quick-streams.js';
import { withSentBodies } from './turn/sent-bodies.js';

export interface OpenAIEngineSettings {
  /** `OPENAI_MODEL`: the model of agents that name none. @default the engine's default model */
  model: string | undefined;
  /** `OPENAI_BASE_URL`: any OpenAI-compatible server (Ollama, vLLM, LM Studio). */
  baseURL: string | undefined;
  /** `OPENAI_API_KEY`. */
  apiKey: string | undefined;
  /** `OPENAI_USE_RESPONSES`: `false` selects chat completions. @default true */
  useResponses: boolean;
  /** `SERVICE_SDK_TRACING`: `true` lets the engine export its own traces. @default false */
  sdkTracing: boolean;
}

export function engineSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): OpenAIEngineSettings {
  return {
    model: env.OPENAI_MODEL || undefined,
    baseURL: env.OPENAI_BASE_URL || undefined,
    apiKey: env.OPENAI_API_KEY || undefined,
    useResponses: parseBool('OPENAI_USE_RESPONSES', env.OPENAI_USE_RESPONSES, true),
    sdkTracing: parseBool('SERVICE_SDK_TRACING', env.SERVICE_SDK_TRACING, false),
  };
}

function parseBool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name}=${value} is not a boolean; use true or false`);
}

/** What an agent turn needs when its model is a name (not a Model object) and none is configured. */
export const NO_MODEL_CONFIGURED =
  'agent turns need a model: set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for an OpenAI-compatible server ' +
  '(a local Ollama, vLLM or LM Studio, e.g. OPENAI_BASE_URL=http://localhost:11434/v1), or give the agent a Model object';

/** Whether a model provider is configured (an API key or a base URL). */
export function modelConfigured(settings: OpenAIEngineSettings): boolean {
  return settings.apiKey !== undefined || settings.baseURL !== undefined;
}

/**
 * The client of the configured provider, its streams read by the deck (`quick-streams.ts`)
 * and its request bodies told to the turn that sends them (`turn/sent-bodies.ts`);
 * `undefined` when neither a key nor a base URL is set (the engine's default client, if an
 * embedder set one, is used then). A server given by its URL alone gets a placeholder key:
 * local servers (Ollama, vLLM, LM Studio) need none, and the client refuses to start without.
 * The key comes from the settings (the environment) only: the SDK does not expose a key set
 * with `setDefaultOpenAIKey()`.
 */
export function modelClient(settings: OpenAIEngineSettings): OpenAI | undefined {
  if (!modelConfigured(settings)) return undefined;
  const client = new OpenAI({
    apiKey: settings.apiKey ?? NO_KEY,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
  });
  // The bodies are told to the turn (what the model saw) before the reader's patch sends them.
  return withSentBodies(withQuickStreams(client));
}

/** The key sent to a server configured by `OPENAI_BASE_URL` alone. */
const NO_KEY = 'no-key';
