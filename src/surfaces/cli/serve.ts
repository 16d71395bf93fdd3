#!/usr/bin/env node
/** `service-serve [project]`: serve a project directory over HTTP (serve-command.ts); also `agentdeck serve`. */
import { unsupportedNodeMessage } from '../../core/node-version.js';

// Checked before the command's modules load: an older Node gets this line, not a stack trace.
const unsupported = unsupportedNodeMessage();
const argv = process.argv.slice(2);
if (unsupported) {
  console.error(`service-serve: ${unsupported}`);
  process.exitCode = 1;
} else {
  const { asksVersion, packageVersion } = await import('./version.js');
  const { main } = await import('./serve-command.js');
  if (asksVersion(argv)) console.log(`service-serve (agentdeck) ${packageVersion()}`);
  else process.exitCode = await main(argv);
}
