/**
 * `agentdeck status`: the event store's schema layout, read without migrating the store (a
 * file that does not exist is not created).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { layoutOf } from '../../stores/shared/migration.js';
import { EVENT_STORE_MIGRATIONS, SqliteEventStore } from '../../stores/sqlite/index.js';
import { main } from './status-command.js';

async function status(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line));
  try {
    return { code: await main(['status', ...args]), out: lines.join('\n') };
  } finally {
    log.mockRestore();
  }
}

describe('agentdeck status', () => {
  const code = layoutOf(EVENT_STORE_MIGRATIONS);

  it('prints the layout of the store, the code and the oldest release that can use it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentdeck-status-')), 'state.db');
    await new SqliteEventStore({ path }).close();
    vi.stubEnv('SERVICE_EVENTS', `sqlite://${path}`);
    const { code: exit, out } = await status([]);
    expect(exit).toBe(0);
    expect(out).toContain(`layout        ${code.version} (current)`);
    expect(out).toContain(
      `oldest usable ${code.oldestUsable} (agentdeck ${code.oldestUsableRelease} or later)`,
    );
    const json = JSON.parse((await status(['--json'])).out) as { layout: unknown };
    expect(json.layout).toEqual({
      version: code.version,
      code_version: code.version,
      oldest_usable: code.oldestUsable,
      oldest_usable_release: code.oldestUsableRelease,
    });
  });

  it('reads a store not created yet as layout 0, without creating it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agentdeck-status-')), 'none', 'state.db');
    vi.stubEnv('SERVICE_EVENTS', `sqlite://${path}`);
    expect((await status([])).out).toContain('layout        0 (not created yet');
    expect(existsSync(path)).toBe(false);
  });
});
