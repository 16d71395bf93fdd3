#!/usr/bin/env node
/**
 * `service`: the first name of the `agentdeck` command (`service runs ...`), kept so existing
 * scripts work; `agentdeck` is the preferred name (Debian has a `/usr/sbin/service` of its own).
 */
import { unsupportedNodeMessage } from '../../core/node-version.js';

// Checked before the command's modules load: an older Node gets this line, not a stack trace.
const unsupported = unsupportedNodeMessage();
const argv = process.argv.slice(2);
if (unsupported) {
  console.error(`service: ${unsupported}`);
  process.exitCode = 1;
} else {
  const { asksVersion, packageVersion } = await import('./version.js');
  if (asksVersion(argv)) console.log(`service (agentdeck) ${packageVersion()}`);
  else if (argv[0] === 'tick') {
    const { main } = await import('./tick-command.js');
    process.exitCode = await main(argv, 'service');
  } else if (argv[0] === 'schedules') {
    const { main } = await import('./schedules-command.js');
    process.exitCode = await main(argv, 'service');
  } else {
    const { main } = await import('./runs-command.js');
    process.exitCode = await main(argv, 'service');
  }
}
