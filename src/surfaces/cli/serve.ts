#!/usr/bin/env node
/** `service-serve [project]`: serve a project directory over HTTP (serve-command.ts); also `agentdeck serve`. */
import { main } from './serve-command.js';
import { asksVersion, packageVersion } from './version.js';

const argv = process.argv.slice(2);
if (asksVersion(argv)) console.log(`service-serve (agentdeck) ${packageVersion()}`);
else process.exitCode = await main(argv);
