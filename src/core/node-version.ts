/**
 * The Node.js versions agentdeck runs on: 22.13 or later (its SQLite store is Node's own
 * `node:sqlite`, unflagged from 22.13). On an older Node, importing the package or running
 * a command fails at once with this message, rather than with Node's
 * `No such built-in module: node:sqlite` from deep inside an import.
 */

export const REQUIRED_NODE = { major: 22, minor: 13 } as const;

/** The message for an unsupported Node, or `null` when `version` (like `20.20.2`) is supported. */
export function unsupportedNodeMessage(version: string = process.versions.node): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const { major: needMajor, minor: needMinor } = REQUIRED_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return (
    `agentdeck needs Node.js ${needMajor}.${needMinor} or later; this is Node.js ${version}. ` +
    `Install a current LTS release (for example with nvm: nvm install 24 && nvm use 24), or run ` +
    `through a project that pins one (npm i -D node@24, then npx or npm run use it)`
  );
}

/** Throw when this Node is older than {@link REQUIRED_NODE}. */
export function requireSupportedNode(version: string = process.versions.node): void {
  const message = unsupportedNodeMessage(version);
  if (message) throw new Error(message);
}
