/**
 * `agentdeck status [--json]`: the schema layout of the event store `SERVICE_EVENTS` names
 * (default `./.agentdeck/state.db`), read without migrating it: the store's layout, the one
 * this release's code knows, and the oldest layout (and release) that can still use the
 * store. For a rolling upgrade: a release whose code layout is at least `oldest usable`
 * starts on the store; an older one refuses (CONTRIBUTING.md, "Migrations and rolling
 * upgrades"; docs/deployment.md).
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import type { StoreLayout } from '../../core/store.js';
import { parseEventStoreUrl } from '../../stores/events-url.js';
import { readEventStoreLayout } from '../../stores/layout.js';
import { stateName } from './served-state.js';
import { packageVersion } from './version.js';

const USAGE = `Usage:
  agentdeck status [--json]

Prints the schema layout of the event store SERVICE_EVENTS names (default:
./.agentdeck/state.db), without migrating it: the store's layout version, the one this
release knows, and the oldest layout and release that can still use the store.`;

export async function main(argv: readonly string[], program = 'agentdeck'): Promise<number> {
  let values: { json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv.slice(1),
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const location = parseEventStoreUrl(process.env.SERVICE_EVENTS);
    const layout = await readEventStoreLayout(location);
    const release = packageVersion();
    if (values.json) {
      console.log(
        JSON.stringify({
          store: stateName(location),
          backend: location.backend,
          release,
          ...(layout ? { layout } : {}),
        }),
      );
      return 0;
    }
    console.log(`event store   ${stateName(location)} (${location.backend})`);
    console.log(`release       agentdeck ${release}`);
    if (layout) for (const line of layoutLines(layout)) console.log(line);
    else console.log('layout        none (the memory store has no schema)');
    return 0;
  } catch (error) {
    console.error(`${program}: ${errorMessage(error)}`);
    return 1;
  }
}

function layoutLines(layout: StoreLayout): string[] {
  const usable = layout.oldest_usable_release
    ? `${layout.oldest_usable} (agentdeck ${layout.oldest_usable_release} or later)`
    : `${layout.oldest_usable}`;
  const state =
    layout.version === 0
      ? 'not created yet: this release creates it at its layout'
      : layout.version < layout.code_version
        ? 'behind this release: this release migrates it on start'
        : layout.version === layout.code_version
          ? 'current'
          : layout.oldest_usable <= layout.code_version
            ? 'ahead of this release, which still uses it (a newer release expanded it)'
            : 'ahead of this release, which refuses to start on it';
  return [
    `layout        ${layout.version} (${state})`,
    `code layout   ${layout.code_version}`,
    `oldest usable ${usable}`,
  ];
}
