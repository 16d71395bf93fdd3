#!/usr/bin/env node
/**
 * `service`: the first name of the `agentdeck` command (`service runs ...`), kept so existing
 * scripts work; `agentdeck` is the preferred name (Debian has a `/usr/sbin/service` of its own).
 */
import { main } from './runs-command.js';
import { asksVersion, packageVersion } from './version.js';

const argv = process.argv.slice(2);
if (asksVersion(argv)) console.log(`service (agentdeck) ${packageVersion()}`);
else process.exitCode = await main(argv, 'service');
