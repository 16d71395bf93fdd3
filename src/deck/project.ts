/**
 * Project discovery (SPEC.md point 8): a catalog read from a directory, passed as the same
 * four catalog arguments to the same constructor. Layout, under the project directory
 * (default `.agentdeck`):
 *
 *   agents/<bundle>/agent.ts|.js        default export: an Agent
 *   workflows/<bundle>/workflow.ts|.js  default export: a Workflow
 *   schedules/<bundle>/schedule.ts|.js  default export: a Schedule
 *   scorers/<bundle>/scorer.ts|.js      default export: a Scorer (docs/evals.md)
 *   skills/<name>/SKILL.md              the skills root, when present
 *   ../.mcp.json                        next to the project directory; absent means no servers
 *
 * TypeScript bundles load at run time without a build step (jiti). A bundle's
 * `import ... from 'agentdeck'` is served the host's own module, so its Agent is the very
 * class the deck checks against; other host modules the bundles must share (a context
 * class) are passed as `modules`, since anything else jiti loads is a copy of its own.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createJiti } from 'jiti';
import { Agent } from '../authoring/agent.js';
import { Schedule } from '../authoring/schedule.js';
import { Scorer } from '../authoring/scorer.js';
import { Workflow } from '../authoring/workflow.js';
import { ConfigError, errorMessage } from '../core/errors.js';
import type { DeckOptions, ProjectOptions } from './options.js';

/** The catalog arguments found in a project directory. */
export interface ProjectCatalog {
  /** The project's name for messages: the folder that holds the project directory. */
  name: string;
  agents: Agent[];
  workflows: Workflow[];
  schedules: Schedule[];
  scorers: Scorer[];
  skills?: string;
  mcp?: string;
}

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

/**
 * Load the catalog of a project directory. `modules` are served to the bundles as they are,
 * by import specifier, like `agentdeck` itself: a bundle importing one gets the host's very
 * module (the same classes: a context class declared on the deck, say), not a second copy.
 */
export async function discoverProject(
  path: string,
  modules: Readonly<Record<string, unknown>> = {},
): Promise<ProjectCatalog> {
  const dir = resolve(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ConfigError(
      `project directory ${dir} does not exist; create it with agents/<name>/agent.ts, workflows/<name>/workflow.ts or skills/<name>/SKILL.md, or pass another path`,
    );
  }
  const load = await bundleLoader(modules);
  const agents = await loadBundles(dir, 'agents', 'agent', load, Agent);
  const workflows = await loadBundles(dir, 'workflows', 'workflow', load, Workflow);
  const schedules = await loadBundles(dir, 'schedules', 'schedule', load, Schedule);
  const scorers = await loadBundles(dir, 'scorers', 'scorer', load, Scorer);
  const skills = join(dir, 'skills');
  const mcp = join(dirname(dir), '.mcp.json');
  return {
    name: basename(dirname(dir)) || basename(dir),
    agents,
    workflows,
    schedules,
    scorers,
    ...(existsSync(skills) ? { skills } : {}),
    ...(existsSync(mcp) ? { mcp } : {}),
  };
}

type Load = (file: string) => Promise<unknown>;

async function loadBundles<T>(
  dir: string,
  folder: string,
  entry: string,
  load: Load,
  // biome-ignore lint/suspicious/noExplicitAny: a class of any constructor
  kind: abstract new (...args: any[]) => T,
): Promise<T[]> {
  const root = join(dir, folder);
  if (!existsSync(root)) return [];
  const found: T[] = [];
  for (const bundle of readdirSync(root, { withFileTypes: true })) {
    if (!bundle.isDirectory() || bundle.name.startsWith('.') || bundle.name.startsWith('_')) {
      continue;
    }
    const candidates = EXTENSIONS.map((ext) => join(root, bundle.name, `${entry}${ext}`)).filter(
      existsSync,
    );
    const expected = join(root, bundle.name, `${entry}.ts`);
    if (candidates.length !== 1) {
      throw new ConfigError(
        candidates.length === 0
          ? `bundle ${join(root, bundle.name)} has no ${entry} file; add ${expected} (or .js) with a default export`
          : `bundle ${join(root, bundle.name)} has ${candidates.length} ${entry} files (${candidates.map((c) => basename(c)).join(', ')}); keep one`,
      );
    }
    const file = candidates[0] as string;
    let module: unknown;
    try {
      module = await load(file);
    } catch (error) {
      throw new ConfigError(`cannot load ${file}: ${errorMessage(error)}`, { cause: error });
    }
    const value = (module as { default?: unknown } | null)?.default;
    if (!(value instanceof kind)) {
      throw new ConfigError(
        `${file} must export ${kind.name === 'Agent' ? 'an Agent' : `a ${kind.name}`} as its default export ` +
          `(export default new ${kind.name}({ ... })), got ${describe(value, kind.name)}`,
      );
    }
    found.push(value);
  }
  return found;
}

/**
 * A jiti instance serving `agentdeck`, `agentdeck/testing` and the caller's `modules` from
 * the host's own module objects. Everything else a bundle imports is loaded by jiti once per
 * discovery (its cache is shared by the bundles, not with the host).
 */
async function bundleLoader(modules: Readonly<Record<string, unknown>>): Promise<Load> {
  // Loaded when a project is discovered, not at import: this module is part of `agentdeck`.
  const [host, testing] = await Promise.all([import('../index.js'), import('../testing/index.js')]);
  const jiti = createJiti(import.meta.url, {
    virtualModules: { ...modules, agentdeck: host, 'agentdeck/testing': testing },
    fsCache: false,
  });
  return (file) => jiti.import(file);
}

function describe(value: unknown, expected: string): string {
  if (value === undefined) return 'no default export';
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const name = value.constructor?.name ?? 'Object';
  return name === expected
    ? `a ${name} from another copy of agentdeck; import ${name} from 'agentdeck'`
    : `an instance of ${name}`;
}

/** The Deck options of a project directory: its catalog, with the caller's other options. */
export async function projectDeckOptions<C>(
  path: string,
  options: ProjectOptions<C>,
): Promise<DeckOptions<C>> {
  const { modules, ...deckOptions } = options;
  const found = await discoverProject(path, modules);
  const { name, agents, workflows, schedules, scorers, skills, mcp } = found;
  const catalog: DeckOptions<C> = {
    name,
    ...deckOptions,
    agents: agents as NonNullable<DeckOptions<C>['agents']>,
    workflows,
    schedules,
    scorers: [...scorers, ...(deckOptions.scorers ?? [])],
  };
  if (skills !== undefined) catalog.skills = skills;
  if (mcp !== undefined) catalog.mcp = mcp;
  return catalog;
}
