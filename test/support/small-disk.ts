/**
 * For fault-injection tests of a full disk: a tmpfs of a given size mounted on a fresh
 * temporary directory, so that writes past that size fail with ENOSPC. Mounting needs root
 * (or CAP_SYS_ADMIN); where it is refused, the caller gets the reason to skip its test with.
 * Disks still mounted when this process exits are lazily unmounted, so a crashed test leaves
 * no mount behind.
 */
import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** The mount point: a directory holding at most the size asked for. */
  dir: string;
  /** Unmount the tmpfs and remove the directory; safe to call twice. */
  unmount(): Promise<void>;
}

export interface SmallDiskSkipped {
  /** Why no disk could be mounted (the mount command's error). */
  skipped: string;
}

const MOUNT_TIMEOUT_MS = 10_000;

const mountedDirs = new Set<string>();
let exitHandlerInstalled = false;

function unmountLeftoversOnExit(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const dir of mountedDirs) {
      // Lazy (-l): a file still open on the disk must not keep the mount alive.
      spawnSync('umount', ['-l', dir], { stdio: 'ignore', timeout: MOUNT_TIMEOUT_MS });
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Mount a tmpfs of `sizeBytes` (rounded up to whole pages by the kernel) on a temporary directory. */
export async function mountSmallDisk(sizeBytes: number): Promise<SmallDisk | SmallDiskSkipped> {
  if (!Number.isInteger(sizeBytes) || sizeBytes <= 0) {
    throw new Error(`A small disk needs a positive whole number of bytes, not ${sizeBytes}.`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'small-disk-'));
  try {
    await command('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return { skipped: `Cannot mount a ${sizeBytes}-byte tmpfs here: ${(error as Error).message}` };
  }
  mountedDirs.add(dir);
  unmountLeftoversOnExit();
  return {
    dir,
    unmount: async () => {
      if (!mountedDirs.has(dir)) return;
      await command('umount', [dir]);
      mountedDirs.delete(dir);
      // Only the now empty mount point is left; force keeps a second call quiet.
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function command(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: MOUNT_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const detail = stderr.trim() || error.message;
        reject(new Error(`${file} ${args.join(' ')} failed: ${detail}`));
      },
    );
  });
}
