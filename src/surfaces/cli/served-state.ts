/**
 * The project a command works on when none is given. A person runs `agentdeck runs prune`,
 * `schedules` or `tick` where the docs say, beside the state a server writes, and that place
 * need not hold the project (`agentdeck serve examples/project/.agentdeck` keeps its state in
 * `./.agentdeck/state.db`, a folder with no agents in it). So `agentdeck serve` records the
 * absolute path of the project it serves in the state itself, in a register of the event
 * store (`serve:project`, runtime/registers.ts), and a command given no project takes, in
 * order: `./.agentdeck` when it holds a catalog, else the project recorded in the state, else
 * it says plainly that there is none and what to pass.
 *
 * A register rather than a file beside the SQLite file: it lives wherever the state lives
 * (a file or Postgres), goes with it when it is copied or restored, and the commands open the
 * store anyway. A path means something only on the machine that served it, so a command
 * checks that the directory is there before it takes it.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EventStore } from '../../core/store.js';
import { readRegister, writeRegister } from '../../runtime/registers.js';
import { type EventStoreLocation, openEventStore } from '../../stores/events-url.js';
import { redactUrl } from '../../stores/shared/url.js';

/** The register that holds the served project's absolute path. */
const SERVED_PROJECT = 'serve:project';
/** Where a command looks first, as `agentdeck serve` does. */
export const DEFAULT_PROJECT = '.agentdeck';
/** The folders of a project's catalog (deck/project.ts). */
const CATALOG_FOLDERS = ['agents', 'workflows', 'schedules', 'skills'];

/** A command found no project to work on; says where it looked and what to pass. */
export class NoProjectError extends Error {}

/**
 * Record, in the state `SERVICE_EVENTS` names, that `project` is the one served on it (not
 * for `memory://`, which no other process reads).
 */
export async function recordServedProject(
  project: string,
  location: EventStoreLocation,
): Promise<void> {
  if (location.backend === 'memory') return;
  const store = openEventStore(process.env.SERVICE_EVENTS);
  try {
    await writeRegister(store, SERVED_PROJECT, resolve(project));
  } finally {
    await store.close();
  }
}

/** Whether `dir` holds a project's catalog (one of its folders), not only a state file. */
export function holdsProject(dir: string): boolean {
  return CATALOG_FOLDERS.some((folder) => isDirectory(join(dir, folder)));
}

/** The project recorded in the state `store` is, checked to be on this machine. */
export async function servedProject(
  store: EventStore,
  location: EventStoreLocation,
  pass: string,
): Promise<string> {
  const recorded = await readRegister(store, SERVED_PROJECT);
  if (recorded === null) throw noProject(location, pass);
  if (!isDirectory(recorded)) {
    throw new NoProjectError(
      `no project here: ./${DEFAULT_PROJECT} holds none, and the project agentdeck serve last served on ${stateName(location)}, ${recorded}, is not a directory on this machine; pass ${pass}`,
    );
  }
  return recorded;
}

/** Nothing to go on: no project in `./.agentdeck`, none recorded in the state. */
export function noProject(location: EventStoreLocation, pass: string): NoProjectError {
  const here = existsSync(DEFAULT_PROJECT)
    ? `./${DEFAULT_PROJECT} holds no agents, workflows, schedules or skills`
    : `there is no ./${DEFAULT_PROJECT}`;
  return new NoProjectError(
    `no project here: ${here}, and no agentdeck serve has recorded the project it serves in ${stateName(location)}; pass ${pass}, the directory agentdeck serve was given (or run this where it was started)`,
  );
}

/** The state as a person names it: the SQLite file, the Postgres URL without its password. */
export function stateName(location: EventStoreLocation): string {
  if (location.backend === 'sqlite') return location.path;
  if (location.backend === 'postgres') return redactUrl(location.url);
  return 'memory://';
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
