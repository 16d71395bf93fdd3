/**
 * The package's version, read from its package.json (two folders above this file's, in the
 * sources and in `dist` alike), for `--version` in every command.
 */
import { createRequire } from 'node:module';

export function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('../../../package.json') as { version: string };
  return manifest.version;
}

/** Whether the command line asks for the version (`--version` or `-v` alone). */
export function asksVersion(argv: readonly string[]): boolean {
  return argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v');
}
