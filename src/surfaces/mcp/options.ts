/**
 * The MCP server endpoint's settings (`/mcp`, docs/mcp-server.md), declared once: whether it
 * is served, which agents and workflows it offers as tools, and how long a tool call waits
 * for its run; the environment settings they default to (`SERVICE_MCP`, `SERVICE_MCP_TOOLS`,
 * `SERVICE_MCP_WAIT_SECONDS`); and the names of the service's own tools, which no agent or
 * workflow may take while the endpoint is on.
 */
import { ConfigError } from '../../core/errors.js';

export interface McpEndpointOptions {
  /** Serve `/mcp`; off, it is 404. @default SERVICE_MCP (`on`/`off`), else on */
  enabled?: boolean;
  /**
   * The agents and workflows offered as tools, by name; an unknown name is a ConfigError when
   * the app is built. The service's own tools (`get_run`, `list_pending`, `answer_run`) are
   * always offered. @default SERVICE_MCP_TOOLS (comma-separated), else every agent and workflow
   */
  tools?: readonly string[];
  /**
   * The longest a tool call waits for its run to end (or to wait for a person) before it
   * answers `{status: "running", run_id}`; the run goes on, and `get_run` follows it. Clients
   * give up on a call after about 60 s. @default SERVICE_MCP_WAIT_SECONDS, else 45
   */
  waitSeconds?: number;
}

/** The settings every field resolved. */
export interface McpSettings {
  enabled: boolean;
  /** `null`: every agent and workflow. */
  tools: readonly string[] | null;
  waitSeconds: number;
}

export const DEFAULT_MCP_WAIT_SECONDS = 45;

/** The service's own tools: a catalog name may not be one of them while `/mcp` is served. */
export const SERVICE_TOOL_NAMES = ['get_run', 'list_pending', 'answer_run'] as const;

type Env = Record<string, string | undefined>;

/** The settings the environment gives. */
export function mcpSettingsFromEnv(env: Env = process.env): McpSettings {
  const tools = (env.SERVICE_MCP_TOOLS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return {
    enabled: onOff(env.SERVICE_MCP),
    tools: tools.length === 0 ? null : tools,
    waitSeconds: waitSeconds(env.SERVICE_MCP_WAIT_SECONDS, 'SERVICE_MCP_WAIT_SECONDS'),
  };
}

/** The app's options over the environment's settings, checked. */
export function resolveMcpSettings(options: McpEndpointOptions = {}, env: Env = process.env) {
  const fromEnv = mcpSettingsFromEnv(env);
  const settings: McpSettings = {
    enabled: options.enabled ?? fromEnv.enabled,
    tools: options.tools ?? fromEnv.tools,
    waitSeconds: options.waitSeconds ?? fromEnv.waitSeconds,
  };
  if (typeof settings.enabled !== 'boolean') {
    throw new ConfigError(`mcp.enabled must be true or false, got ${String(settings.enabled)}`);
  }
  if (!(settings.waitSeconds > 0) || !Number.isFinite(settings.waitSeconds)) {
    throw new ConfigError(
      `mcp.waitSeconds must be a positive number of seconds, got ${String(settings.waitSeconds)}`,
    );
  }
  return settings;
}

/**
 * Refuse catalog names the service's own tools take (a tool's name is its agent's or
 * workflow's name), naming them and what to do.
 */
export function checkServiceToolNames(names: Iterable<string>): void {
  const taken = [...names].filter((name) =>
    (SERVICE_TOOL_NAMES as readonly string[]).includes(name),
  );
  if (taken.length === 0) return;
  throw new ConfigError(
    `invalid catalog: ${taken.map((n) => `'${n}'`).join(', ')} ${taken.length === 1 ? 'is the name' : 'are the names'} ` +
      `of the MCP server's own ${taken.length === 1 ? 'tool' : 'tools'} (${SERVICE_TOOL_NAMES.join(', ')}), ` +
      'and each agent and workflow is a tool of the same name at /mcp; rename it, or turn the ' +
      'endpoint off (SERVICE_MCP=off, or deck.app({ mcp: { enabled: false } }))',
  );
}

function onOff(raw: string | undefined): boolean {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '') return true;
  if (value === 'on' || value === 'true' || value === '1') return true;
  if (value === 'off' || value === 'false' || value === '0') return false;
  throw new ConfigError(`SERVICE_MCP must be on or off, got '${raw}'`);
}

function waitSeconds(raw: string | undefined, name: string): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_MCP_WAIT_SECONDS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive number of seconds, got '${raw}'`);
  }
  return value;
}
