/**
 * Test support for the protocol codecs' golden files. Each codec test maps every file of the
 * frozen event corpus (`test/fixtures/events/v3/`, one kind per file) through its codec and
 * compares the text with its golden file under `test/fixtures/golden/<protocol>/`, so a new
 * event kind shows up in every protocol at once, as a missing file. `UPDATE_GOLDEN=1` writes
 * the files instead: review the diff before committing it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { type Event, parseEvent } from '../../src/core/events.js';
import { REPO_ROOT } from './cli.js';

const CORPUS = join(REPO_ROOT, 'test/fixtures/events/v3');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** The corpus files (`run.started.jsonl`, ...), sorted. */
export const CORPUS_FILES = readdirSync(CORPUS)
  .filter((file) => file.endsWith('.jsonl'))
  .sort();

/** The events of one corpus file, in order. */
export function corpusEvents(file: string): Event[] {
  return readFileSync(join(CORPUS, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => parseEvent(line));
}

/** The folder of a protocol's golden files. */
export function goldenDir(protocol: string): string {
  return join(REPO_ROOT, 'test/fixtures/golden', protocol);
}

/** The file names in a golden folder (none when it does not exist yet). */
export function goldenFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * `actual` must equal the golden file at `path` (written there with `UPDATE_GOLDEN=1`);
 * `testFile` is the test to run to write it, named in the failure.
 */
export function expectGolden(path: string, actual: string, testFile: string): void {
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  const fix = `run UPDATE_GOLDEN=1 npx vitest run ${testFile} and review the diff`;
  expect(existsSync(path), `${path} is missing: ${fix}`).toBe(true);
  expect(actual, `${path} differs: if the change is meant, ${fix}`).toBe(
    readFileSync(path, 'utf8'),
  );
}

/** JSON as the golden files hold it: two-space indents, a newline last. */
export function goldenJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
