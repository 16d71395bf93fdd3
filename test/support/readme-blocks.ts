/**
 * Test support: the fenced code blocks of a Markdown file (the README and the guides in
 * docs/), each with the `<!-- sample: ... -->` marker written on the line before its fence
 * (invisible once rendered). A fence may be indented (a block inside a list item); its body
 * loses that indentation. The markers say what the samples check does with a block:
 *
 * - none, on a `ts` or `typescript` block: type-checked alone, as printed;
 * - `run <file>`: type-checked, then run as `<file>` (see the test for what each run expects);
 * - `test <file>`: type-checked, then run with vitest as `<file>`;
 * - `file <name>`: written as that file of the scratch app (the recommended tsconfig.json);
 * - `install`: a bash block whose `npm i` lines name the packages the scratch app gets;
 * - `curl`: a bash block whose curl lines are replayed against the served example project;
 * - `fragment <why>`: a `ts` block not meant to compile alone; skipped, with its reason.
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The Markdown files whose samples are checked: README.md, then every file under docs/, by path. */
export async function docFiles(): Promise<string[]> {
  const docs = await readdir(join(REPO_ROOT, 'docs'), { recursive: true });
  const guides = docs.filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`);
  return ['README.md', ...guides.sort()];
}

export type SampleKind =
  | 'compile'
  | 'run'
  | 'test'
  | 'file'
  | 'install'
  | 'curl'
  | 'fragment'
  /** An unmarked block in another language than `ts` (output, a shell session): not a sample. */
  | 'other';

export interface CodeBlock {
  /** The Markdown file, relative to the repository (`README.md`, `docs/http-api.md`). */
  file: string;
  /** The fence's info string: `ts`, `bash`, `json`... */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The nearest `##`/`###` heading above the block. */
  section: string;
  kind: SampleKind;
  /** The marker's argument: a file name, or a fragment's reason. */
  arg: string;
  code: string;
}

const MARKER = /^<!--\s*sample:\s*(\w+)(?:\s+(.*?))?\s*-->$/;
const KINDS = new Set<string>(['run', 'test', 'file', 'install', 'curl', 'fragment']);

/** The info strings of a TypeScript block. */
const TS = new Set(['ts', 'typescript']);

/**
 * Every fenced block of `markdown` (the text of `file`); throws on an unknown marker, one with
 * no block after it, or a fence left open.
 */
export function codeBlocks(markdown: string, file = 'README.md'): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  let marker: { kind: string; arg: string; line: number } | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i] ?? '';
    const heading = /^#{2,3} (.*)/.exec(text);
    if (heading?.[1]) section = heading[1];
    const marked = MARKER.exec(text.trim());
    if (marked) {
      const kind = marked[1] ?? '';
      if (!KINDS.has(kind))
        throw new Error(`${file} line ${i + 1}: unknown sample marker '${kind}'`);
      marker = { kind, arg: marked[2] ?? '', line: i + 1 };
      continue;
    }
    const fence = /^(\s*)```(\S*)\s*$/.exec(text);
    if (!fence) {
      if (marker && text.trim() !== '') {
        throw new Error(
          `${file} line ${marker.line}: a sample marker must come right before a fence`,
        );
      }
      continue;
    }
    const start = i;
    const indent = fence[1] ?? '';
    const body: string[] = [];
    for (i += 1; i < lines.length && !/^\s*```\s*$/.test(lines[i] ?? ''); i += 1) {
      const line = lines[i] ?? '';
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (i >= lines.length) throw new Error(`${file} line ${start + 1}: a fence is never closed`);
    const lang = fence[2] ?? '';
    const kind = (marker?.kind ?? (TS.has(lang) ? 'compile' : 'other')) as SampleKind;
    blocks.push({
      file,
      lang,
      line: start + 1,
      section,
      kind,
      arg: marker?.arg ?? '',
      code: `${body.join('\n')}\n`,
    });
    marker = null;
  }
  return blocks;
}
