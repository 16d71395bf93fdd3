/**
 * Test support: the fenced code blocks of a Markdown file, each with the `<!-- sample: ... -->`
 * marker written on the line before its fence (invisible once rendered). The markers say what
 * the README check does with a block:
 *
 * - none, on a `ts` block: type-checked alone, as printed;
 * - `run <file>`: type-checked, then run as `<file>` (see the test for what each run expects);
 * - `test <file>`: type-checked, then run with vitest as `<file>`;
 * - `file <name>`: written as that file of the scratch app (the recommended tsconfig.json);
 * - `install`: a bash block whose `npm i` lines name the packages the scratch app gets;
 * - `curl`: a bash block whose curl lines are replayed against the served example project;
 * - `fragment <why>`: a `ts` block not meant to compile alone; skipped, with its reason.
 */

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

/** Every fenced block of `markdown`; throws on an unknown marker or one with no block after it. */
export function codeBlocks(markdown: string): CodeBlock[] {
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
        throw new Error(`README line ${i + 1}: unknown sample marker '${kind}'`);
      marker = { kind, arg: marked[2] ?? '', line: i + 1 };
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(text);
    if (!fence) {
      if (marker && text.trim() !== '') {
        throw new Error(
          `README line ${marker.line}: a sample marker must come right before a fence`,
        );
      }
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i += 1) {
      body.push(lines[i] ?? '');
    }
    const lang = fence[1] ?? '';
    const kind = (marker?.kind ?? (lang === 'ts' ? 'compile' : 'other')) as SampleKind;
    blocks.push({
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
