/**
 * The docs hold together: every relative link of README.md, CHANGELOG.md, CONTRIBUTING.md and
 * docs/**\/*.md names a file that exists, and its `#anchor` a heading of that file (as GitHub
 * makes anchors); every guide in docs/ is linked from the README; and the README stays a
 * first screen. Links inside code (fenced blocks, `inline code`) are not links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/packed-app.js';

/** The Markdown files checked, relative to the repository. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`);
  const top = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md'];
  return [...top.filter((file) => existsSync(join(REPO_ROOT, file))), ...docs.sort()];
}

/** `markdown` without its fenced blocks (each line kept, emptied, so line numbers hold). */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const mark = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence === null && mark) {
      fence = mark;
      return '';
    }
    if (fence !== null) {
      if (mark === fence) fence = null;
      return '';
    }
    return line;
  });
}

/** GitHub's anchors for the headings of `markdown` (`## The app and \`serve()\``: `the-app-and-serve`). */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

interface Link {
  line: number;
  target: string;
}

/** The relative links (and images) of `markdown`: not web addresses, not inside code. */
function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  for (const [i, raw] of withoutFences(markdown).entries()) {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const match of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ line: i + 1, target });
    }
  }
  return links;
}

/**
 * What is wrong with the links of `file`: each a `file:line: target: why`. `read` gives a
 * file's text by its path relative to the repository, or null when there is none.
 */
function linkProblems(
  file: string,
  read: (path: string) => string | null,
  isDirectory: (path: string) => boolean = () => false,
): string[] {
  const problems: string[] = [];
  const text = read(file) ?? '';
  for (const { line, target } of relativeLinks(text)) {
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? file : normalize(join(dirname(file), path));
    const where = `${file}:${line}: ${target}`;
    if (resolved.startsWith('..')) {
      problems.push(`${where}: outside the repository`);
      continue;
    }
    if (isDirectory(resolved)) {
      if (anchor) problems.push(`${where}: an anchor on a directory`);
      continue;
    }
    const linked = read(resolved);
    if (linked === null) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchors(linked).has(anchor)) {
      problems.push(`${where}: no heading with the anchor #${anchor} in ${resolved}`);
    }
  }
  return problems;
}

function readRepo(path: string): string | null {
  const full = join(REPO_ROOT, path);
  if (!existsSync(full) || statSync(full).isDirectory()) return null;
  return readFileSync(full, 'utf8');
}

function isRepoDirectory(path: string): boolean {
  const full = join(REPO_ROOT, path);
  return existsSync(full) && statSync(full).isDirectory();
}

describe('the links of the docs', () => {
  const files = markdownFiles();

  it('finds the docs', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md']));
    expect(files.length).toBeGreaterThan(10);
  });

  for (const file of files) {
    it(`${file}: every relative link resolves, anchors included`, () => {
      expect(linkProblems(file, readRepo, isRepoDirectory)).toEqual([]);
    });
  }

  it('reaches every guide from the README, and every page of docs/internals from the map', () => {
    const readme = relativeLinks(readRepo('README.md') ?? '').map((l) => l.target.split('#')[0]);
    const guides = files.filter((file) => /^docs\/[^/]+\.md$/.test(file));
    expect(guides.filter((guide) => !readme.includes(guide))).toEqual([]);
    const map = readRepo('docs/architecture.md') ?? '';
    for (const page of files.filter((file) => file.startsWith('docs/internals/'))) {
      expect(map, page).toContain(relative('docs', page));
    }
  });

  it('keeps the README to a first screen that starts with the two commands', () => {
    const readme = readRepo('README.md') ?? '';
    expect(readme.split('\n').length).toBeLessThanOrEqual(165);
    expect(readme).toMatch(/^# agentdeck\n\n[^\n]+/);
  });

  it('reports a missing file, a missing anchor and a link out of the repository', () => {
    const pages: Record<string, string> = {
      'README.md': [
        '# Title',
        '[ok](docs/a.md#the-app-and-serve) [here](#title) `[code](nowhere.md)`',
        '[gone](docs/missing.md) [anchor](docs/a.md#nope) [out](../x.md)',
        '```',
        '[in a block](nowhere.md)',
        '```',
        '[web](https://example.com)',
      ].join('\n'),
      'docs/a.md': '# A\n\n## The app and `serve()`\n\n```bash\n# not a heading\n```\n',
    };
    const problems = linkProblems('README.md', (path) => pages[path] ?? null);
    expect(problems).toEqual([
      'README.md:3: docs/missing.md: no such file',
      'README.md:3: docs/a.md#nope: no heading with the anchor #nope in docs/a.md',
      'README.md:3: ../x.md: outside the repository',
    ]);
    expect(anchors(pages['docs/a.md'] ?? '')).toEqual(new Set(['a', 'the-app-and-serve']));
  });
});
