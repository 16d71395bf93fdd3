/**
 * Test support: a scratch application that depends on agentdeck as a user's does, through
 * the tarball `npm pack` makes, with no network. The tarball is unpacked as
 * `node_modules/agentdeck`; its dependencies, and the packages the install line of
 * docs/getting-started.md names, are links to this repository's `node_modules` (the same
 * versions the tests run), so
 * the app sees only what a user who ran that install line would see: an import of a package
 * the line does not name fails, as it would for them.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { distIsCurrent, REPO_ROOT } from './cli.js';

export { REPO_ROOT };

const run = promisify(execFile);

/** The packages named by the `npm i` / `npm install` lines of a shell block (flags left out). */
export function installedPackages(block: string): string[] {
  const names: string[] = [];
  for (const line of block.split('\n')) {
    const command = line.replace(/#.*/, '').trim().split(/\s+/);
    if (command[0] !== 'npm' || !['i', 'install', 'add'].includes(command[1] ?? '')) continue;
    const words = command.slice(2).filter((word) => !word.startsWith('-'));
    names.push(...words.map((word) => word.replace(/(?<=.)@[^/]*$/, ''))); // zod@4 -> zod
  }
  return names;
}

/**
 * `npm pack` of this repository into `into`, returning the tarball's path. Packs the
 * repository itself when its `dist/` is fresh; otherwise builds a copy in `into/stage`
 * (so a stale or missing `dist/` is never packed, and the repository's is never rewritten
 * while other tests read it).
 */
export async function packAgentdeck(into: string): Promise<{ tarball: string; staged: boolean }> {
  let from = REPO_ROOT;
  const staged = !distIsCurrent();
  if (staged) {
    from = join(into, 'stage');
    await mkdir(from, { recursive: true });
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'tsconfig.json',
      'tsconfig.build.json',
    ]) {
      await cp(join(REPO_ROOT, file), join(from, file));
    }
    await cp(join(REPO_ROOT, 'src'), join(from, 'src'), { recursive: true });
    await symlink(join(REPO_ROOT, 'node_modules'), join(from, 'node_modules'), 'dir');
    // The package's own build (tsc, then the run inspector's files beside their module).
    await run('npm', ['run', 'build'], { cwd: from });
  }
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', into], {
    cwd: from,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as [{ filename: string }];
  return { tarball: join(into, packed.filename), staged };
}

async function link(nodeModules: string, name: string): Promise<void> {
  const target = join(REPO_ROOT, 'node_modules', name);
  await stat(target).catch(() => {
    throw new Error(`the docs install '${name}', which this repository's node_modules lacks`);
  });
  const path = join(nodeModules, name);
  await mkdir(dirname(path), { recursive: true });
  await symlink(target, path, 'dir');
}

/**
 * A scratch app in `dir`: `package.json` (ESM), `node_modules/agentdeck` unpacked from
 * `tarball` with its dependencies linked inside it, and `packages` linked at the top.
 */
export async function createScratchApp(
  dir: string,
  tarball: string,
  packages: readonly string[],
): Promise<void> {
  const agentdeck = join(dir, 'node_modules/agentdeck');
  await mkdir(agentdeck, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'readme-samples', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run('tar', ['-xzf', tarball, '-C', agentdeck, '--strip-components=1']);
  const manifest = JSON.parse(await readFile(join(agentdeck, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    await link(join(agentdeck, 'node_modules'), name);
  }
  for (const name of packages) {
    if (name !== 'agentdeck') await link(join(dir, 'node_modules'), name);
  }
}
