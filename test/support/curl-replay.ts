/**
 * Test support: the curl lines of a docs shell block (docs/http-api.md), replayed with `fetch`
 * against a running server, and their answers compared with what the docs print under them.
 *
 * A `# ...` line right after a command (or a comment on its own line) documents its answer:
 * a JSON value is compared with the answer's JSON (same keys, same values; `"..."` stands for
 * any value), `data:`/`event:` lines with the answer's server-sent events (each documented
 * frame must be among them), and the 4xx/5xx codes it names are accepted besides a 2xx.
 */

export interface CurlCall {
  /** The command as printed (continuation lines joined). */
  command: string;
  method: string;
  /** As printed, `$NAME`s not yet expanded. */
  url: string;
  headers: Record<string, string>;
  body: string | null;
  /** The documentation lines under it, `# ` removed. */
  documented: string[];
}

/** Shell words of one command line, up to an unquoted `#`; quotes removed, `$NAME` kept. */
function shellWords(line: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] ?? '';
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unclosed quote in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === '#' && word === null) {
      return { words, comment: line.slice(i + 1).trim() };
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return { words, comment: '' };
}

/** Every curl command of a shell block, with the documentation printed under it. */
export function curlCalls(block: string): CurlCall[] {
  const lines = block.replace(/\\\n\s*/g, '').split('\n');
  const calls: CurlCall[] = [];
  let last: CurlCall | null = null;
  for (const line of lines) {
    const text = line.trim();
    if (text.startsWith('#')) {
      last?.documented.push(text.replace(/^#\s?/, ''));
      continue;
    }
    last = null;
    if (!text.startsWith('curl ')) continue;
    const { words, comment } = shellWords(text);
    const call: CurlCall = {
      command: text,
      method: 'GET',
      url: '',
      headers: {},
      body: null,
      documented: comment ? [comment] : [],
    };
    for (let i = 1; i < words.length; i += 1) {
      const word = words[i] ?? '';
      if (word === '-X') call.method = words[++i] ?? '';
      else if (word === '-H') {
        const header = words[++i] ?? '';
        const colon = header.indexOf(':');
        call.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
      } else if (word === '-d') {
        call.body = words[++i] ?? '';
        if (call.method === 'GET') call.method = 'POST';
      } else if (word === '-N' || word === '-s' || word === '-i') {
        // no buffering, silent, headers shown: nothing to do for fetch
      } else if (word.startsWith('-')) throw new Error(`unknown curl option ${word} in: ${text}`);
      else call.url = word;
    }
    calls.push(call);
    last = call;
  }
  return calls;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** Send `call` to `origin` (the printed `localhost:8000` replaced), `$NAME`s from `vars`. */
export async function replay(
  call: CurlCall,
  origin: string,
  vars: Readonly<Record<string, string>>,
): Promise<Answer> {
  const url = call.url
    .replace(/\$(\w+)/g, (_, name: string) => {
      const value = vars[name];
      if (value === undefined) throw new Error(`no value for $${name} in: ${call.command}`);
      return value;
    })
    .replace(/^(https?:\/\/)?localhost:8000/, origin);
  const response = await fetch(url, {
    method: call.method,
    headers: call.headers,
    ...(call.body === null ? {} : { body: call.body }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Where `actual` differs from `documented` (`"..."` matches anything), or null. */
export function mismatch(documented: unknown, actual: unknown, path = '$'): string | null {
  if (documented === '...') return null;
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual) || actual.length !== documented.length) {
      return `${path}: ${JSON.stringify(actual)} is not a list of ${documented.length}`;
    }
    for (const [i, item] of documented.entries()) {
      const found = mismatch(item, actual[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (documented !== null && typeof documented === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return `${path}: ${JSON.stringify(actual)} is not an object`;
    }
    const want = Object.keys(documented).sort().join(',');
    const got = Object.keys(actual).sort().join(',');
    if (want !== got) return `${path}: keys ${got}, documented ${want}`;
    for (const [key, value] of Object.entries(documented)) {
      const found = mismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  return Object.is(documented, actual)
    ? null
    : `${path}: ${JSON.stringify(actual)}, documented ${JSON.stringify(documented)}`;
}

/** The JSON value a documentation line starts with (text may follow it), or undefined. */
function leadingJson(text: string): unknown {
  if (!/^[[{]/.test(text)) return undefined;
  for (let end = text.length; end > 0; end -= 1) {
    if (text[end - 1] !== '}' && text[end - 1] !== ']') continue;
    try {
      return JSON.parse(text.slice(0, end));
    } catch {
      // a shorter prefix, then
    }
  }
  return undefined;
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface Frame {
  event: string;
  data: string;
}

function frames(lines: readonly string[]): Frame[] {
  const found: Frame[] = [];
  let event = 'message';
  let data: string[] = [];
  for (const line of [...lines, '']) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trim());
    else if (line.trim() === '') {
      if (data.length > 0) found.push({ event, data: data.join('\n') });
      event = 'message';
      data = [];
    }
  }
  return found;
}

/** What is wrong with `answer` given what the docs document for `call`; [] when nothing. */
export function answerProblems(call: CurlCall, answer: Answer): string[] {
  const named: string[] = call.documented.join(' ').match(/\b[45]\d\d\b/g) ?? [];
  const ok = answer.status >= 200 && answer.status < 300;
  if (!ok && !named.includes(String(answer.status))) {
    return [`${call.command}: ${answer.status} ${answer.text.slice(0, 200)}`];
  }
  if (!ok || answer.status === 204) return [];
  const problems: string[] = [];
  const sse = call.documented.some((line) => /^(data|event):/.test(line));
  if (sse) {
    const got = frames(answer.text.split('\n'));
    for (const want of frames(call.documented)) {
      const wanted = leadingJson(want.data);
      const same = got.some(
        (frame) =>
          frame.event === want.event &&
          (wanted === undefined
            ? frame.data === want.data
            : mismatch(wanted, json(frame.data)) === null),
      );
      if (!same) {
        problems.push(
          `${call.command}: no frame like ${want.event} ${want.data} in:\n${answer.text}`,
        );
      }
    }
    return problems;
  }
  const documented = call.documented.map(leadingJson).find((value) => value !== undefined);
  if (documented !== undefined) {
    const found = mismatch(documented, json(answer.text));
    if (found) problems.push(`${call.command}: ${found}`);
  }
  return problems;
}
