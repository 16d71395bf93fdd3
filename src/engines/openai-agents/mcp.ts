/**
 * The deck's MCP servers, live: `open()` (the deck's, or the first turn that uses a server
 * when the deck leaves them to their first use) starts every configured server (stdio) or
 * connects to it (Streamable HTTP) with `@openai/agents`' MCP classes, in parallel; a
 * server that fails is reported once in the log and remembered, and the agents that use it
 * run without its tools (told so in their instructions, and by a `status.reported` event on
 * each of their runs). `close()` stops every server it started.
 */
import { format } from 'node:util';
import {
  type getLogger,
  type MCPServer,
  MCPServerStdio,
  MCPServerStreamableHttp,
} from '@openai/agents-core';
import { toFunctionToolName } from '@openai/agents-core/utils';
import { isStdioServer, type MCP, type McpServerConfig } from '../../authoring/mcp.js';
import { errorMessage } from '../../core/errors.js';
import { log } from '../../core/log.js';

/** How long a server may take to start and answer `initialize`. */
const CONNECT_TIMEOUT_MS = 30_000;

/** The environment a stdio server inherits when its config sets `env` (as popular clients do). */
const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'TMPDIR', 'LANG'];

/** An MCP server as `McpConnections.describe()` shows it. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  status: 'connected' | 'failed' | 'starting';
  /** Why it failed to start or to list its tools. */
  error: string | null;
  tools: { name: string; description: string; parameters: Record<string, unknown> }[];
}

export class McpConnections {
  readonly #connected = new Map<string, MCPServer>();
  readonly #failures = new Map<string, string>();
  #opening: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly mcp: MCP,
    private readonly connectTimeoutMs = CONNECT_TIMEOUT_MS,
  ) {}

  /**
   * Start or connect every server; never throws (a failure is logged and remembered). A
   * second call waits for the first; a call after `close()` starts nothing.
   */
  open(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#opening ??= Promise.all(
      [...this.mcp.servers].map(([name, config]) => this.#connect(name, config)),
    ).then(() => undefined);
    return this.#opening;
  }

  async #connect(name: string, config: McpServerConfig): Promise<void> {
    let server: MCPServer | null = null;
    let connecting: Promise<void> | null = null;
    try {
      server = createServer(name, config);
      connecting = server.connect();
      await withTimeout(connecting, this.connectTimeoutMs, name);
      if (this.#closed) throw new Error('the deck closed while it started');
      this.#connected.set(name, server);
    } catch (error) {
      const reason = errorMessage(error);
      this.#failures.set(name, reason);
      if (!this.#closed) {
        log.error(
          `[agentdeck] MCP server '${name}' (${this.mcp.source}) failed to start: ${reason}; agents that use it run without its tools`,
        );
      }
      const started = server;
      await started?.close().catch(() => undefined);
      // A connect that outlives its timeout still spawns the server: stop it when it lands.
      connecting?.then(
        () => started?.close().catch(() => undefined),
        () => undefined,
      );
    }
  }

  /** The connected servers among `names`, in order. */
  serversFor(names: readonly string[]): MCPServer[] {
    return names.flatMap((name) => {
      const server = this.#connected.get(name);
      return server ? [server] : [];
    });
  }

  /** The servers among `names` that failed to start, with why. */
  failuresFor(names: readonly string[]): Array<{ name: string; reason: string }> {
    return names.flatMap((name) => {
      const reason = this.#failures.get(name);
      return reason === undefined ? [] : [{ name, reason }];
    });
  }

  /**
   * Every configured server as the studio shows it (#21): its transport, whether it runs (or
   * why not) and the tools it serves now, each by the name the model is offered (the engine's
   * `toFunctionToolName` of the server's: `get_env` for `get-env`), which is also the name
   * `needsApproval` takes. Never its command, URL, environment or headers: they may hold secrets.
   */
  async describe(): Promise<McpServerStatus[]> {
    return Promise.all(
      [...this.mcp.servers].map(async ([name, config]): Promise<McpServerStatus> => {
        const transport = isStdioServer(config) ? 'stdio' : 'http';
        const failure = this.#failures.get(name);
        if (failure !== undefined) {
          return { name, transport, status: 'failed', error: failure, tools: [] };
        }
        const server = this.#connected.get(name);
        if (!server) return { name, transport, status: 'starting', error: null, tools: [] };
        try {
          const tools = (await server.listTools()).map((t) => ({
            name: toFunctionToolName(t.name), // the name the model is offered and calls
            description: t.description ?? '',
            parameters: (t.inputSchema ?? {}) as Record<string, unknown>,
          }));
          return { name, transport, status: 'connected', error: null, tools };
        } catch (error) {
          return { name, transport, status: 'failed', error: errorMessage(error), tools: [] };
        }
      }),
    );
  }

  /** The instructions' note on failed servers ('' when all of them run). */
  notesFor(names: readonly string[]): string {
    const failed = this.failuresFor(names);
    if (failed.length === 0) return '';
    const list = failed.map((f) => `'${f.name}'`).join(', ');
    return `\n\nNote: the tools of MCP server ${list} are unavailable right now (it failed to start); do not promise what they would do.`;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const servers = [...this.#connected.values()];
    this.#connected.clear();
    await Promise.allSettled(servers.map((server) => server.close()));
  }
}

/**
 * The engine logs a failed connection itself; we report it once, with the server's name
 * and source, and record failed tool calls on `tool.call.completed`. Warnings still show.
 */
const quietLogger: ReturnType<typeof getLogger> = {
  namespace: 'agentdeck:mcp',
  debug: () => undefined,
  error: () => undefined,
  // Formatted as console.warn would (objects inspected), then one line to the deck's log.
  warn: (message, ...args) => log.warn(`[agentdeck] MCP: ${format(message, ...args)}`),
  dontLogModelData: true,
  dontLogToolData: true,
};

function createServer(name: string, config: McpServerConfig): MCPServer {
  if (isStdioServer(config)) {
    return new MCPServerStdio({
      name,
      command: expand(config.command),
      args: (config.args ?? []).map(expand),
      ...(config.cwd !== undefined ? { cwd: expand(config.cwd) } : {}),
      ...(config.env !== undefined ? { env: stdioEnv(config.env) } : {}),
      cacheToolsList: true,
      logger: quietLogger,
    });
  }
  const headers = Object.fromEntries(
    Object.entries(config.headers ?? {}).map(([key, value]) => [key, expand(value)]),
  );
  return new MCPServerStreamableHttp({
    name,
    url: expand(config.url),
    cacheToolsList: true,
    logger: quietLogger,
    ...(Object.keys(headers).length > 0 ? { requestInit: { headers } } : {}),
  });
}

function stdioEnv(env: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(
    INHERITED_ENV.flatMap((key) => {
      const value = process.env[key];
      return value === undefined ? [] : [[key, value]];
    }),
  );
  return {
    ...inherited,
    ...Object.fromEntries(Object.entries(env).map(([key, value]) => [key, expand(value)])),
  };
}

/** `${NAME}` -> the environment variable NAME; an unset one is an error (the server does not start). */
function expand(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, key: string) => {
    const found = process.env[key];
    if (found === undefined) {
      throw new Error(`environment variable ${key} is not set (the configuration uses \${${key}})`);
    }
    return found;
  });
}

async function withTimeout(promise: Promise<void>, ms: number, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ms} ms from MCP server '${name}'`)),
      ms,
    );
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
