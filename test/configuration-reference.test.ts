/**
 * docs/configuration.md against the code, so it cannot drift: its environment table lists
 * exactly the variables `src/` reads (a new `env.SERVICE_X` without a row fails here, as does
 * a row for a variable nothing reads), its option tables list exactly the members of the
 * option types (`DeckOptions`, `ProjectOptions`, `OpenOptions`, `AppOptions`,
 * `ServeOptions`) and the flags `agentdeck serve` parses, and the defaults it states are the
 * ones the code resolves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { engineSettingsFromEnv } from '../src/engines/openai-agents/settings.js';
import { tracerSettingsFromEnv } from '../src/observers/langfuse/settings.js';
import { runtimeSettingsFromEnv } from '../src/runtime/settings.js';
import { DEFAULT_MAX_SESSIONS } from '../src/stores/sqlite/sessions.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  drainMsFromEnv,
  serveSettingsFromEnv,
} from '../src/surfaces/http/options.js';
import { REPO_ROOT } from './support/packed-app.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const REFERENCE = read('docs/configuration.md');

interface Table {
  /** The paragraph right above the table (or its heading). */
  caption: string;
  /** The backticked names of each row's first cell. */
  names: string[][];
  /** Each row's cells, trimmed. */
  rows: string[][];
}

/** The tables of a Markdown page, each with the text right above it. */
function tables(markdown: string): Table[] {
  const found: Table[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i]?.startsWith('|') || !lines[i + 1]?.startsWith('|---')) continue;
    let above = i - 1;
    while (above >= 0 && lines[above]?.trim() === '') above -= 1;
    const caption: string[] = [];
    for (; above >= 0 && lines[above]?.trim() !== ''; above -= 1) {
      caption.unshift(lines[above] ?? '');
    }
    const rows: string[][] = [];
    for (i += 2; lines[i]?.startsWith('|'); i += 1) {
      // An escaped pipe (a backslash before it) belongs to its cell.
      const cells = (lines[i] ?? '').split(/(?<!\\)\|/).slice(1, -1);
      rows.push(cells.map((cell) => cell.replace(/\\\|/g, '|').trim()));
    }
    const names = rows.map((row) =>
      [...(row[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''),
    );
    found.push({ caption: caption.join(' '), names, rows });
  }
  return found;
}

/** The one table whose caption contains `marker`. */
function table(marker: string): Table {
  const matching = tables(REFERENCE).filter((t) => t.caption.includes(marker));
  if (matching.length !== 1) throw new Error(`${matching.length} tables under '${marker}'`);
  return matching[0] as Table;
}

/** The environment variables a piece of TypeScript reads (comments left out). */
function variablesRead(source: string): Set<string> {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const names = new Set<string>();
  const patterns = [
    /\benv\.([A-Z][A-Z0-9_]+)\b/g, // env.SERVICE_X, process.env.OPENAI_Y
    /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g, // env['X']
    /['"]((?:SERVICE|OPENAI)_[A-Z0-9_]+)['"]/g, // a name handed to a reader: positive(env, 'SERVICE_X')
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) names.add(m[1] ?? '');
  return names;
}

/** Every variable the package's sources read (tests aside). */
function variablesReadBySrc(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(join(REPO_ROOT, 'src'), { recursive: true }).map(String)) {
    if (!file.endsWith('.ts') || /\.test(-d)?\.ts$/.test(file) || file.endsWith('.d.ts')) continue;
    for (const name of variablesRead(read(join('src', file)))) names.add(name);
  }
  return [...names].sort();
}

/** The members of an interface declared in `file`. */
function members(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) && statement.name.text === name) {
      return statement.members.map((member) => member.name?.getText(source) ?? '').sort();
    }
  }
  throw new Error(`no interface ${name} in ${file}`);
}

/** The long flags `agentdeck serve` parses (serve-command.ts, its parseArgs options). */
function serveFlags(): string[] {
  const source = read('src/surfaces/cli/serve-command.ts');
  const options = /options: \{([\s\S]*?)\n {4}\},/.exec(source)?.[1] ?? '';
  return [...options.matchAll(/^\s+'?([a-z][a-z-]*)'?: \{/gm)].map((m) => `--${m[1]}`).sort();
}

const env = table('## Environment variables');

/** The default cell of the environment table's row that names `variable`. */
function documentedDefault(variable: string): string {
  const i = env.names.findIndex((names) => names.includes(variable));
  if (i < 0) throw new Error(`no row for ${variable}`);
  return env.rows[i]?.[1] ?? '';
}

describe('docs/configuration.md against the code', () => {
  it('lists exactly the environment variables src/ reads', () => {
    const documented = env.names.flat().sort();
    expect(documented).toEqual([...new Set(documented)]);
    expect(documented).toEqual(variablesReadBySrc());
  });

  it('states the defaults the code resolves', () => {
    const runtime = runtimeSettingsFromEnv({});
    expect(documentedDefault('SERVICE_RUNTIME_STALE_RUN_AFTER_SECONDS')).toBe(
      `\`${runtime.staleRunAfterSeconds}\``,
    );
    expect(documentedDefault('SERVICE_RUNTIME_HEARTBEAT_SECONDS')).toBe(
      `\`${runtime.heartbeatSeconds}\``,
    );
    expect(documentedDefault('SERVICE_RUNTIME_CONTROL_POLL_MS')).toBe(
      `\`${runtime.controlPollMs}\``,
    );
    expect(runtime.retentionDays).toBeNull();
    expect(documentedDefault('SERVICE_RETENTION_DAYS')).toMatch(/^none: every run is kept/);
    expect(documentedDefault('SERVICE_DRAIN_SECONDS')).toBe(`\`${drainMsFromEnv({}) / 1000}\``);
    const { host, port } = serveSettingsFromEnv({});
    expect(documentedDefault('HOST')).toBe(`\`${host}\`, \`${port}\``);
    expect(documentedDefault('SERVICE_MAX_BODY_BYTES')).toBe(
      `${DEFAULT_MAX_BODY_BYTES / 1024 / 1024} MiB`,
    );
    expect(documentedDefault('SERVICE_SESSION_MAX')).toBe(`\`${DEFAULT_MAX_SESSIONS}\``);
    const prefix = /keyPrefix: '([^']+)'/.exec(read('src/stores/redis/sessions.ts'))?.[1];
    expect(documentedDefault('SERVICE_SESSION_KEY_PREFIX')).toBe(`\`${prefix}\``);
    const engine = engineSettingsFromEnv({});
    expect(documentedDefault('OPENAI_USE_RESPONSES')).toBe(`\`${engine.useResponses}\``);
    expect(documentedDefault('SERVICE_SDK_TRACING')).toBe(`\`${engine.sdkTracing}\``);
    expect(documentedDefault('SERVICE_TRACER_BASE_URL')).toBe(
      `\`${tracerSettingsFromEnv({}).baseUrl}\``,
    );
    expect(documentedDefault('SERVICE_EVENTS')).toContain('`./.agentdeck/state.db`');
  });

  it('lists every option of the deck, open(), deck.app() and serve()', () => {
    const documented = (marker: string) =>
      table(marker)
        .names.map((names) => names[0])
        .sort();
    expect(documented('`new Deck({ ... })`')).toEqual(
      members('src/deck/options.ts', 'DeckOptions'),
    );
    expect(documented('`Deck.fromProject(dir, options)`')).toEqual(
      members('src/deck/options.ts', 'ProjectOptions'),
    );
    expect(documented('`deck.open(options)`')).toEqual(
      members('src/deck/options.ts', 'OpenOptions'),
    );
    expect(documented('`deck.app(options)`')).toEqual(
      members('src/surfaces/http/options.ts', 'AppOptions'),
    );
    expect(documented('`serve(deck, options)`')).toEqual(
      members('src/surfaces/http/options.ts', 'ServeOptions'),
    );
    expect(documented('`agentdeck serve [project]`')).toEqual(serveFlags());
  });

  it('finds what it compares: reads, members and flags', () => {
    expect(
      variablesRead(
        [
          'const a = env.SERVICE_A?.trim();',
          "positive(env, 'SERVICE_B', 1, 'seconds');",
          "const c = process.env['OPENAI_C'];",
          '// env.SERVICE_COMMENTED',
          '/** `SERVICE_DOC` */',
          'const msg = `SERVICE_D must be a number`;',
        ].join('\n'),
      ),
    ).toEqual(new Set(['SERVICE_A', 'SERVICE_B', 'OPENAI_C']));
    expect(members('src/deck/options.ts', 'OpenOptions')).toEqual([
      'background',
      'mcpStart',
      'wakeTimers',
    ]);
    expect(serveFlags()).toContain('--manual-timers');
    expect(tables('a:\n\n| x | y |\n|---|---|\n| `A`, `B` | `c \\| d` |\n')).toEqual([
      { caption: 'a:', names: [['A', 'B']], rows: [['`A`, `B`', '`c | d`']] },
    ]);
  });
});
