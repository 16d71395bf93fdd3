#!/usr/bin/env node
/**
 * `agentdeck`: the package's command. `agentdeck serve [project]` serves a project over HTTP
 * (as `service-serve`), `agentdeck runs ...` lists, shows and signals runs (as `service runs`),
 * `agentdeck --version` prints the version.
 */
import { main as runs } from './runs-command.js';
import { main as serve } from './serve-command.js';
import { asksVersion, packageVersion } from './version.js';

const USAGE = `Usage:
  agentdeck serve [project] [--host HOST] [--port PORT] [--cors-origin ORIGIN]...
  agentdeck runs signal <run_id> {pause,cancel,resume} [--reason TEXT]
  agentdeck runs show <run_id> [--json]
  agentdeck runs ls [--status STATUS] [--origin NAME] [--session ID] [--limit N] [--json]
  agentdeck --version

\`agentdeck serve --help\` and \`agentdeck runs --help\` say more.`;

const argv = process.argv.slice(2);
const [command, ...rest] = argv;
if (asksVersion(argv)) console.log(`agentdeck ${packageVersion()}`);
else if (command === 'serve') process.exitCode = await serve(rest);
else if (command === 'runs') process.exitCode = await runs(argv, 'agentdeck');
else if (command === undefined || command === '--help' || command === '-h') {
  console.log(USAGE);
  process.exitCode = command === undefined ? 2 : 0;
} else {
  console.error(`agentdeck: unknown command '${command}'\n\n${USAGE}`);
  process.exitCode = 2;
}
