import { afterEach, describe, expect, it, vi } from 'vitest';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { log } from '../core/log.js';
import { Agent, ConfigError } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

describe('the logger option', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("sends the open deck's log lines to the logger, and back to console once it closes", async () => {
    const lines: string[] = [];
    const logger = {
      error: (line: string) => lines.push(`error ${line}`),
      warn: (line: string) => lines.push(`warn ${line}`),
      info: (line: string) => lines.push(`info ${line}`),
    };
    const onConsole = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const greeter = new Agent({ name: 'Greeter', model: new ScriptedModel([{ text: 'hello' }]) });
    // The retention sweep logs what it removed: a line the deck writes by itself.
    const { deck } = await openTestDeck({ agents: [greeter], retentionDays: 1e-7, logger });
    await deck.run('Greeter', 'hi');
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.includes('retention')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/^info \[agentdeck\] retention: removed 1 run/),
    );
    expect(onConsole).not.toHaveBeenCalled();

    await deck.close();
    log.info('[agentdeck] after the close');
    expect(onConsole).toHaveBeenCalledWith('[agentdeck] after the close');
    expect(lines.some((line) => line.includes('after the close'))).toBe(false);
  });

  it('refuses a logger without error, warn and info', () => {
    expect(() => testDeck({ logger: { error: () => undefined } as never })).toThrow(ConfigError);
    expect(() => testDeck({ logger: { error: () => undefined } as never })).toThrow(
      /`logger` must have error, warn and info/,
    );
  });
});
