/**
 * MCP server configuration, in the `.mcp.json` format popular clients already use:
 * `{"mcpServers": {"<name>": {...}}}` where a server is either stdio (`command`, `args`,
 * `env`, `cwd`) or Streamable HTTP (`url`, `headers`). Reading and checking it touches only
 * the file: no server starts, no network (that is `open()`'s job, in the engine adapter).
 * `${NAME}` in a value is replaced by the environment variable NAME when the server starts.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../core/errors.js';

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});

const httpServer = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
});

const mcpFile = z.object({
  mcpServers: z.record(z.string().min(1), z.unknown()),
});

export type StdioServerConfig = z.infer<typeof stdioServer>;
export type HttpServerConfig = z.infer<typeof httpServer>;
/** One server of `.mcp.json`. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return 'command' in config;
}

/**
 * The MCP servers of a deck. The deck starts them at `open()` and always stops them at
 * `close()`.
 * @example
 * new Deck({ mcp: new MCP({ docs: { command: 'npx', args: ['-y', 'my-docs-mcp'] } }) })
 * new Deck({ mcp: MCP.fromFile('.mcp.json') })
 */
export class MCP {
  readonly kind = 'agentdeck.mcp' as const;
  /** Servers by name, checked. */
  readonly servers: ReadonlyMap<string, McpServerConfig>;
  /** Where the configuration came from, for messages. */
  readonly source: string;

  constructor(
    servers: Record<string, unknown>,
    options: { source?: string; baseDir?: string } = {},
  ) {
    this.source = options.source ?? 'the MCP configuration';
    const base = options.baseDir ?? process.cwd();
    const checked = new Map<string, McpServerConfig>();
    const problems: string[] = [];
    for (const [name, raw] of Object.entries(servers ?? {})) {
      const result = parseServer(raw);
      if (typeof result === 'string') problems.push(`server '${name}': ${result}`);
      else checked.set(name, withBaseDir(result, base));
    }
    if (problems.length > 0) {
      throw new ConfigError(`invalid MCP servers in ${this.source}:\n- ${problems.join('\n- ')}`);
    }
    this.servers = checked;
  }

  /** Read an `.mcp.json` file (a relative `cwd` in it is relative to the file). */
  static fromFile(path: string): MCP {
    const file = resolve(path);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ConfigError(`cannot read MCP configuration ${file}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    const parsed = mcpFile.safeParse(json);
    if (!parsed.success) {
      throw new ConfigError(
        `MCP configuration ${file} must be {"mcpServers": {"<name>": {...}}}: ${parsed.error.issues[0]?.message}`,
      );
    }
    return new MCP(parsed.data.mcpServers, { source: file, baseDir: dirname(file) });
  }
}

/** What the Deck's `mcp` option takes. */
export type McpOption = string | MCP;

export function toMcp(option: McpOption | undefined): MCP | null {
  if (option === undefined) return null;
  if (option instanceof MCP) return option;
  if (typeof option === 'string') return MCP.fromFile(option);
  throw new ConfigError('Deck option `mcp` must be a path to an .mcp.json file or an MCP object');
}

function parseServer(raw: unknown): McpServerConfig | string {
  if (typeof raw !== 'object' || raw === null) return 'must be an object';
  const record = raw as Record<string, unknown>;
  if (record.type === 'sse') {
    return 'the SSE transport is not supported; use Streamable HTTP (`url`) or stdio (`command`)';
  }
  const schema = 'command' in record ? stdioServer : 'url' in record ? httpServer : null;
  if (!schema) return 'needs `command` (a stdio server) or `url` (a Streamable HTTP server)';
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  return parsed.error.issues
    .map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`)
    .join('; ');
}

function withBaseDir(config: McpServerConfig, base: string): McpServerConfig {
  if (!isStdioServer(config) || config.cwd === undefined) return config;
  return { ...config, cwd: resolve(base, config.cwd) };
}
