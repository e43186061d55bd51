import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A tag for the shared-memory segments of one kolorun's workers (`KOLO_SHM_TAG`): the engine
 * puts it at the front of every segment name it creates (`/dev/shm/kolo-<tag>-…`), so kolorun
 * can remove what killed workers left behind. Letters and digits only.
 *
 * @example
 * ```ts
 * sharedMemoryTag(4242); // e.g. 'r39ua5f01c2'
 * ```
 */
export function sharedMemoryTag(pid: number = process.pid): string {
  return `r${pid.toString(36)}${randomBytes(3).toString('hex')}`;
}

/**
 * Removes every segment in `dir` whose name starts with `kolo-<tag>-` and returns their paths.
 * A segment is unlinked by its ranks once all have attached, or when one fails; only a rank
 * killed (SIGKILL) before every rank attached leaves one, which this sweeps when the job ends.
 *
 * @example
 * ```ts
 * sweepSharedMemory('r39ua5f01c2'); // [] after a clean job
 * ```
 */
export function sweepSharedMemory(tag: string, dir = '/dev/shm'): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];  // no /dev/shm on this platform: nothing of ours can be there
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(`kolo-${tag}-`)) continue;
    const path = join(dir, name);
    rmSync(path, { force: true });
    removed.push(path);
  }
  return removed;
}
