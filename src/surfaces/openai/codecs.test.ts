/**
 * The OpenAI codecs on the frozen event corpus (`test/fixtures/events/v3/`): every line of
 * every kind's file goes through a fresh chat completions codec and a fresh responses codec,
 * and their frames are compared with the golden files in `test/fixtures/golden/openai/`, so
 * a new event kind (a new corpus file) fails here until its frames are looked at and
 * committed. `UPDATE_GOLDEN=1 npx vitest run src/surfaces/openai/codecs.test.ts` writes them.
 * Also: a stream renderer asked again for events it rendered (the stream pump's catch-up
 * from the log) writes the same frames as the first time.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Event, parseEvent } from '../../core/events.js';
import { ChatChunkCodec } from './chat-codec.js';
import { replayableRenderer, type StreamCodec } from './replayable.js';
import { ResponsesCodec } from './responses-codec.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CORPUS = join(ROOT, 'test/fixtures/events/v3');
const GOLDEN = join(ROOT, 'test/fixtures/golden/openai');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const CODECS: Record<string, () => StreamCodec<unknown, unknown>> = {
  chat: () =>
    new ChatChunkCodec({
      id: 'chatcmpl-run',
      created: 1_795_000_000,
      model: 'Greeter',
      includeUsage: true,
    }),
  responses: () =>
    new ResponsesCodec({
      id: 'resp_run',
      createdAt: 1_795_000_000,
      model: 'Greeter',
      instructions: null,
      previousResponseId: null,
    }),
};

function corpus(file: string): Event[] {
  return readFileSync(join(CORPUS, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => parseEvent(JSON.parse(line)));
}

const files = readdirSync(CORPUS).filter((f) => f.endsWith('.jsonl'));

describe.each(Object.keys(CODECS))('the %s codec on the event corpus', (name) => {
  it.each(files)('%s', (file) => {
    const codec = (CODECS[name] as () => StreamCodec<unknown, unknown>)();
    const frames = corpus(file).map((event) => ({
      seq: event.seq,
      kind: event.kind,
      frames: codec.encode(event),
    }));
    const golden = join(GOLDEN, name, file.replace(/\.jsonl$/, '.json'));
    if (UPDATE) {
      mkdirSync(join(GOLDEN, name), { recursive: true });
      writeFileSync(golden, `${JSON.stringify(frames, null, 2)}\n`);
    }
    expect(
      existsSync(golden),
      `no golden file for ${file}: run UPDATE_GOLDEN=1 npx vitest run src/surfaces/openai/codecs.test.ts and review ${golden}`,
    ).toBe(true);
    expect(frames).toEqual(JSON.parse(readFileSync(golden, 'utf8')));
  });

  it('has no golden file without its corpus file', () => {
    const kept = readdirSync(join(GOLDEN, name)).map((f) => f.replace(/\.json$/, '.jsonl'));
    expect(kept.filter((f) => !files.includes(f))).toEqual([]);
  });
});

describe('replayableRenderer', () => {
  it('writes the same frames for events rendered again from the log as the first time', () => {
    const turn = ['run.started', 'text.delta', 'message.completed', 'run.completed']
      .flatMap((kind) => corpus(`${kind}.jsonl`))
      .map((event, seq) => ({ ...event, seq }) as Event);
    for (const make of Object.values(CODECS)) {
      const quiet = { observe: () => {}, failed: () => '' };
      const once = replayableRenderer(make(), JSON.stringify, quiet);
      const straight = turn.map((event) => once.frame(event));
      const again = replayableRenderer(make(), JSON.stringify, quiet);
      // The pump rendered up to the third event, then the writer read back from the second.
      const replayed = [
        ...turn.slice(0, 3).map((e) => again.frame(e)),
        ...turn.slice(1).map((e) => again.frame(e)),
      ];
      expect([...replayed.slice(0, 1), ...replayed.slice(3)]).toEqual(straight);
    }
  });
});
