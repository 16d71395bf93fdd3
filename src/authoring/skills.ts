/**
 * Skills: prose an agent reads on demand (SPEC.md point 9). A skill is
 * `<root>/<name>/SKILL.md`: YAML frontmatter with `name` and `description`, then a body.
 * `Skills` holds the roots; `load()` reads them (local files only, at `build()`) and checks
 * every file, reporting every problem with the file it is in. Skills are not programs and
 * never receive a context.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, errorMessage } from '../core/errors.js';

export interface Skill {
  readonly name: string;
  readonly description: string;
  /** The prose after the frontmatter, as `load_skill` returns it. */
  readonly body: string;
  /** The SKILL.md it was read from (absolute). */
  readonly file: string;
}

/** What the Deck's `skills` option takes. */
export type SkillsOption = string | readonly string[] | Skills;

/**
 * The skill roots of a deck.
 * @example new Deck({ skills: new Skills(['./skills', '/opt/shared-skills']) })
 */
export class Skills {
  readonly kind = 'agentdeck.skills' as const;
  /** The roots, absolute. */
  readonly roots: readonly string[];

  constructor(roots: string | readonly string[], options: { baseDir?: string } = {}) {
    const list = typeof roots === 'string' ? [roots] : roots;
    if (!Array.isArray(list) || list.some((r) => typeof r !== 'string' || r === '')) {
      throw new ConfigError('Skills takes a path or a list of paths to skill roots');
    }
    const base = options.baseDir ?? process.cwd();
    this.roots = Object.freeze(list.map((root) => resolve(base, root)));
  }

  /** Read and check every skill under the roots; one ConfigError lists every problem. */
  load(): ReadonlyMap<string, Skill> {
    const skills = new Map<string, Skill>();
    const problems: string[] = [];
    for (const root of this.roots) {
      if (!existsSync(root) || !statSync(root).isDirectory()) {
        problems.push(`skills root ${root} does not exist or is not a directory`);
        continue;
      }
      for (const entry of readdirSync(root, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name.startsWith('_')) {
          continue;
        }
        const file = join(root, entry.name, 'SKILL.md');
        const read = readSkill(file, entry.name);
        if (typeof read === 'string') {
          problems.push(read);
          continue;
        }
        const other = skills.get(read.name);
        if (other) {
          problems.push(
            `skill '${read.name}' is defined twice: ${other.file} and ${file}; rename or remove one`,
          );
          continue;
        }
        skills.set(read.name, read);
      }
    }
    if (problems.length > 0) {
      throw new ConfigError(`invalid skills:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    }
    return skills;
  }
}

/** Resolve the Deck option into a Skills object (relative paths against `baseDir`). */
export function toSkills(option: SkillsOption | undefined, baseDir?: string): Skills | null {
  if (option === undefined) return null;
  if (option instanceof Skills) return option;
  if (typeof option === 'string' || Array.isArray(option)) {
    return new Skills(option, baseDir === undefined ? {} : { baseDir });
  }
  throw new ConfigError('Deck option `skills` must be a path, a list of paths, or a Skills object');
}

const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/** One SKILL.md, or the problem with it (naming the file). */
function readSkill(file: string, folder: string): Skill | string {
  if (!existsSync(file)) return `${file} is missing (every skill folder needs a SKILL.md)`;
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  const match = FRONTMATTER.exec(text);
  if (!match) {
    return `${file} has no YAML frontmatter; start it with ---, name: and description:, then ---`;
  }
  let meta: unknown;
  try {
    meta = parseYaml(match[1] ?? '');
  } catch (error) {
    return `${file} has invalid YAML frontmatter: ${errorMessage(error).split('\n')[0]}`;
  }
  const fields = (typeof meta === 'object' && meta !== null ? meta : {}) as Record<string, unknown>;
  if (fields.name !== folder) {
    return `${file}: frontmatter name ${JSON.stringify(fields.name ?? null)} must equal its folder name '${folder}'`;
  }
  if (typeof fields.description !== 'string' || fields.description.trim() === '') {
    return `${file}: frontmatter description must be a non-empty string (the agent chooses skills by it)`;
  }
  return {
    name: folder,
    description: fields.description.trim(),
    body: (match[2] ?? '').trim(),
    file,
  };
}
