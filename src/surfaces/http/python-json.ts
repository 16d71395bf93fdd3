/**
 * JSON as release 1.2.1 wrote its SSE `data:` lines: Python's `json.dumps` with its defaults.
 * A client of that release may match the raw text (`"type": "node_update"`) or snapshot a
 * stream, so the 1.2.1 stream routes keep its bytes: `", "` between items, `": "` after a key,
 * every character outside printable ASCII escaped as `\uXXXX` in lower-case hex (a character
 * beyond the BMP as its surrogate pair), and a float below 1e-4 in Python's exponent form
 * (`1e-05`). Everything else is `JSON.stringify`'s: key order, `toJSON()`, what is left out
 * (`undefined`, functions, symbols), `null` for a non-finite number, a `TypeError` for a cycle
 * or a BigInt. One difference cannot be helped: a whole float (Python's `5.0`) is a plain
 * number here and is written `5`. No library writes exactly this; strings still go through
 * `JSON.stringify` and are rescanned only when they hold a non-ASCII character, so a delta
 * frame costs some 40 ns more than compact JSON (bench/RESULTS.md, HTTP surface).
 */

/** Printable ASCII is all Python's `ensure_ascii` leaves as it is (0x7f included). */
const NOT_ASCII = /[\u007f-\uffff]/;

/**
 * `value` as Python's `json.dumps(value)` writes it.
 *
 * @example
 * ```ts
 * pythonJson({ delta: 'café ☕' }); // '{"delta": "caf\\u00e9 \\u2615"}'
 * ```
 */
export function pythonJson(value: unknown): string {
  // As JSON.stringify: a top-level value with no JSON form has none (the caller's to refuse).
  return write(value, '', []) as string;
}

function write(input: unknown, key: string, ancestors: object[]): string | undefined {
  let value = input;
  if (typeof value === 'object' && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = toJSON.call(value, key);
  }
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return number(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      return value === null ? 'null' : container(value, ancestors);
    default:
      return undefined; // undefined, a function or a symbol: left out, as JSON.stringify does
  }
}

function container(value: object, ancestors: object[]): string {
  if (value instanceof Number) return number(value.valueOf());
  if (value instanceof String) return quote(value.valueOf());
  if (value instanceof Boolean) return value.valueOf() ? 'true' : 'false';
  if (ancestors.includes(value)) throw new TypeError('Converting circular structure to JSON');
  ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ', ';
      text += write(value[i], String(i), ancestors) ?? 'null';
    }
    text += ']';
  } else {
    text = '{';
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = write(record[key], key, ancestors);
      if (item === undefined) continue;
      if (text.length > 1) text += ', ';
      text += `${quoteKey(key)}: ${item}`;
    }
    text += '}';
  }
  ancestors.pop();
  return text;
}

/** The keys of a stream's frames come back on every frame: each is quoted once. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 1024;

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = quote(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** JSON.stringify's escapes (`\n`, `\"`, `\u001f`, lone surrogates) are Python's too. */
function quote(text: string): string {
  const json = JSON.stringify(text);
  return NOT_ASCII.test(json) ? escapeNonAscii(json) : json;
}

function escapeNonAscii(json: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const unit = json.charCodeAt(i);
    if (unit < 0x7f) continue;
    out += json.slice(from, i);
    out += unit < 0x100 ? '\\u00' : unit < 0x1000 ? '\\u0' : '\\u';
    out += unit.toString(16);
    from = i + 1;
  }
  return out + json.slice(from);
}

/**
 * Both languages print the shortest digits that read back as the same double; they differ in
 * where the exponent form starts: Python's float `repr` below 1e-4, with the exponent padded
 * to two digits (`1.5e-07`). Whole numbers are written as `JSON.stringify` writes them, which
 * is Python's int up to 1e21.
 */
function number(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  const text = String(value);
  if (Number.isInteger(value) || Math.abs(value) >= 1e-4) return text;
  const sign = value < 0 ? '-' : '';
  const at = text.indexOf('e');
  let digits: string;
  let exponent: number;
  if (at >= 0) {
    // JS: `1.5e-7`
    digits = text.slice(sign.length, at).replace('.', '');
    exponent = Number(text.slice(at + 1));
  } else {
    // JS: `0.00001234`
    const fraction = text.slice(sign.length + 2); // after "0."
    const zeros = fraction.length - fraction.replace(/^0+/, '').length;
    digits = fraction.slice(zeros);
    exponent = -(zeros + 1);
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}e-${String(-exponent).padStart(2, '0')}`;
}
