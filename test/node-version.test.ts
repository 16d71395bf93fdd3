/**
 * On a Node.js older than 22.13, importing agentdeck or running one of its commands says what
 * is needed, naming both versions, instead of Node's `No such built-in module: node:sqlite`.
 * The rule is checked on version strings, and for real with an older Node when the machine
 * has one (`OLD_NODE`, default `/usr/bin/node`: Debian's Node 20 on the CI machine).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { unsupportedNodeMessage } from '../src/core/node-version.js';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
const OLD_NODE = process.env.OLD_NODE ?? '/usr/bin/node';

/** The version of `OLD_NODE` when it is older than 22.13, else null (nothing to try). */
async function olderNode(): Promise<string | null> {
  if (!existsSync(OLD_NODE)) return null;
  const { stdout } = await promisify(execFile)(OLD_NODE, ['--version']);
  const version = stdout.trim().replace(/^v/, '');
  return unsupportedNodeMessage(version) ? version : null;
}
const old = await olderNode();

describe('the Node.js version', () => {
  it('is refused below 22.13, with both versions named, and accepted from there', () => {
    expect(unsupportedNodeMessage('20.20.2')).toMatch(
      /^agentdeck needs Node\.js 22\.13 or later; this is Node\.js 20\.20\.2\. Install/,
    );
    expect(unsupportedNodeMessage('22.12.0')).toContain('this is Node.js 22.12.0');
    expect(unsupportedNodeMessage('22.13.0')).toBeNull();
    expect(unsupportedNodeMessage('24.1.0')).toBeNull();
    expect(unsupportedNodeMessage(process.versions.node)).toBeNull();
  });

  it.skipIf(old === null)(
    `stops import 'agentdeck' on Node ${old} with that message`,
    async () => {
      const failure = await promisify(execFile)(OLD_NODE, [
        '--import',
        TSX,
        '-e',
        `await import(${JSON.stringify(join(ROOT, 'src/index.ts'))})`,
      ]).catch((error: { code: number; stderr: string }) => error);
      expect(failure).toMatchObject({ code: 1 });
      const { stderr } = failure as { stderr: string };
      expect(stderr).toContain(`agentdeck needs Node.js 22.13 or later; this is Node.js ${old}`);
      expect(stderr).not.toContain('No such built-in module');
    },
    30_000,
  );

  it.skipIf(old === null)(
    `stops each command on Node ${old} with one line and exit 1`,
    async () => {
      for (const [file, name] of [
        ['agentdeck', 'agentdeck'],
        ['service', 'service'],
        ['serve', 'service-serve'],
      ]) {
        const failure = await promisify(execFile)(OLD_NODE, [
          '--import',
          TSX,
          join(ROOT, `src/surfaces/cli/${file}.ts`),
          '--help',
        ]).catch((error: { code: number; stderr: string }) => error);
        expect(failure).toMatchObject({
          code: 1,
          stderr: `${name}: ${unsupportedNodeMessage(old ?? '')}\n`,
        });
      }
    },
    60_000,
  );
});
