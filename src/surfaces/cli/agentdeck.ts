#!/usr/bin/env node
/**
 * `agentdeck`: the package's command. `agentdeck serve [project]` serves a project over HTTP
 * (as `service-serve`), `agentdeck runs ...` lists, shows and signals runs (as `service runs`),
 * `agentdeck tick` wakes the sleeping workflow threads that are due, `agentdeck status` prints
 * the event store's schema layout (rolling upgrades), `agentdeck eval` keeps datasets and
 * runs experiments (exit 1 under a threshold), `agentdeck --version`
 * prints the version.
 */
import { unsupportedNodeMessage } from '../../core/node-version.js';
import { asksVersion, packageVersion } from './version.js';

const USAGE = `Usage:
  agentdeck serve [project] [--host HOST] [--port PORT] [--cors-origin ORIGIN]...
  agentdeck runs signal <run_id> {pause,cancel,resume} [--reason TEXT]
  agentdeck runs show <run_id or its start> [--json]
  agentdeck runs ls [--status STATUS] [--origin NAME] [--session ID] [--limit N] [--json]
  agentdeck runs approve <run_id> [--url URL | --project DIR] [--json]
  agentdeck runs reject <run_id> [--reason TEXT] [--url URL | --project DIR] [--json]
  agentdeck runs prune --older-than AGE [--status STATUS] [--origin NAME] [--project DIR] [--dry-run]
  agentdeck runs vacuum
  agentdeck tick [project] [--now ISO-TIME]
  agentdeck schedules {ls,pause,resume,trigger} [name] [--project DIR]
  agentdeck status [--json]
  agentdeck eval datasets {ls,create} [name] [--from-runs ID,ID] [--file ITEMS.jsonl] [--project DIR]
  agentdeck eval run <dataset> (--agent NAME | --workflow NAME) [--model M] [--instructions S]
      [--scorer NAME]... [--threshold SCORER=MIN]... [--project DIR] [--json]
  agentdeck --version

\`agentdeck serve --help\`, \`agentdeck runs --help\` and \`agentdeck runs approve --help\` say more.`;

const argv = process.argv.slice(2);
const [command, ...rest] = argv;
// Checked before the commands' modules load: an older Node gets this line, not a stack trace.
const unsupported = unsupportedNodeMessage();
if (unsupported) {
  console.error(`agentdeck: ${unsupported}`);
  process.exitCode = 1;
} else if (asksVersion(argv)) {
  console.log(`agentdeck ${packageVersion()}`);
} else if (command === 'serve') {
  const { main } = await import('./serve-command.js');
  process.exitCode = await main(rest);
} else if (command === 'schedules') {
  const { main } = await import('./schedules-command.js');
  process.exitCode = await main(argv, 'agentdeck');
} else if (command === 'tick') {
  const { main } = await import('./tick-command.js');
  process.exitCode = await main(argv, 'agentdeck');
} else if (command === 'status') {
  const { main } = await import('./status-command.js');
  process.exitCode = await main(argv, 'agentdeck');
} else if (command === 'eval') {
  const { main } = await import('./eval-command.js');
  process.exitCode = await main(argv, 'agentdeck');
} else if (command === 'runs') {
  const { main } = await import('./runs-command.js');
  process.exitCode = await main(argv, 'agentdeck');
} else if (command === undefined || command === '--help' || command === '-h') {
  console.log(USAGE);
  process.exitCode = command === undefined ? 2 : 0;
} else {
  console.error(`agentdeck: unknown command '${command}'\n\n${USAGE}`);
  process.exitCode = 2;
}
