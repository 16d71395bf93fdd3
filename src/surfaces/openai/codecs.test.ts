/**
 * The OpenAI codecs on the frozen event corpus (`test/fixtures/events/v3/`): every line of
 * every kind's file goes through a fresh chat completions codec and a fresh responses codec,
 * and their frames are compared with the golden files in `test/fixtures/golden/openai/`, so
 * a new event kind (a new corpus file) fails here until its frames are looked at and
 * committed. `UPDATE_GOLDEN=1 npx vitest run src/surfaces/openai/codecs.test.ts` writes them.
 * Also: a stream renderer asked again for events it rendered (the stream pump's catch-up
 * from the log) writes the same frames as the first time.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_FILES,
  corpusEvents,
  expectGolden,
  goldenDir,
  goldenFiles,
  goldenJson,
} from '../../../test/support/golden.js';
import type { Event } from '../../core/events.js';
import { ChatChunkCodec } from './chat-codec.js';
import { replayableRenderer, type StreamCodec } from './replayable.js';
import { ResponsesCodec } from './responses-codec.js';

const GOLDEN = goldenDir('openai');

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

const corpus = corpusEvents;
const files = CORPUS_FILES;

describe.each(Object.keys(CODECS))('the %s codec on the event corpus', (name) => {
  it.each(files)('%s', (file) => {
    const codec = (CODECS[name] as () => StreamCodec<unknown, unknown>)();
    const frames = corpus(file).map((event) => ({
      seq: event.seq,
      kind: event.kind,
      frames: codec.encode(event),
    }));
    const golden = join(GOLDEN, name, file.replace(/\.jsonl$/, '.json'));
    expectGolden(golden, goldenJson(frames), 'src/surfaces/openai/codecs.test.ts');
  });

  it('has no golden file without its corpus file', () => {
    const kept = goldenFiles(join(GOLDEN, name)).map((f) => f.replace(/\.json$/, '.jsonl'));
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
