/**
 * `node:sqlite`, loaded when an SQLite store first opens rather than when the package is
 * imported: a static import of it fails an older Node.js while modules are still being
 * linked, before any check of ours can say what is wrong (core/node-version.ts).
 */
import type * as Sqlite from 'node:sqlite';
import { unsupportedNodeMessage } from '../../core/node-version.js';

let loaded: typeof Sqlite | undefined;

/** Node's SQLite module; throws the Node version message when this Node has none. */
export function sqliteModule(): typeof Sqlite {
  loaded ??= process.getBuiltinModule?.('node:sqlite') as typeof Sqlite | undefined;
  if (!loaded) throw new Error(unsupportedNodeMessage() ?? 'node:sqlite is not available');
  return loaded;
}
