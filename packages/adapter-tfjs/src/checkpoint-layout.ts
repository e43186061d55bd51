import { randomBytes } from 'node:crypto';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What `latest.json` in a checkpoint directory points at.
 *
 * @example
 * ```ts
 * const latest: LatestCheckpoint = { epoch: 2, path: 'epoch-00002' };
 * ```
 */
export interface LatestCheckpoint {
  /** The epoch (0-based, as in `model.fit` callbacks) the checkpoint was taken after. */
  readonly epoch: number;
  /** The checkpoint's folder, relative to the checkpoint directory. */
  readonly path: string;
}

const latestFile = 'latest.json';
const prefix = 'epoch-';

/**
 * The folder name of the checkpoint of `epoch`, zero-padded so names sort by epoch.
 *
 * @example
 * ```ts
 * checkpointFolder(2); // 'epoch-00002'
 * ```
 */
export function checkpointFolder(epoch: number): string {
  return `${prefix}${String(epoch).padStart(5, '0')}`;
}

/**
 * A unique temporary name in `directory` for `name`; dot-prefixed so listings skip it.
 *
 * @example
 * ```ts
 * temporaryPath('/ckpt', 'epoch-00002'); // '/ckpt/.epoch-00002.tmp-1234-9f3a…'
 * ```
 */
export function temporaryPath(directory: string, name: string): string {
  return join(directory, `.${name}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/**
 * Points `latest.json` at a checkpoint atomically: writes a temporary file, then renames it.
 *
 * @example
 * ```ts
 * await writeLatest('/ckpt', { epoch: 2, path: 'epoch-00002' });
 * ```
 */
export async function writeLatest(directory: string, latest: LatestCheckpoint): Promise<void> {
  const temporary = temporaryPath(directory, latestFile);
  await writeFile(temporary, `${JSON.stringify(latest)}\n`);
  await rename(temporary, join(directory, latestFile));
}

/**
 * Reads `latest.json`, or undefined when the directory holds no checkpoint yet.
 *
 * @example
 * ```ts
 * const latest = await readLatest('/ckpt'); // { epoch: 2, path: 'epoch-00002' } | undefined
 * ```
 */
export async function readLatest(directory: string): Promise<LatestCheckpoint | undefined> {
  try {
    return JSON.parse(await readFile(join(directory, latestFile), 'utf8')) as LatestCheckpoint;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Deletes all but the newest `keep` checkpoint folders (and leftovers of interrupted saves).
 *
 * @example
 * ```ts
 * await pruneCheckpoints('/ckpt', { keep: 2 });
 * ```
 */
export async function pruneCheckpoints(directory: string, options: { readonly keep: number }): Promise<void> {
  const names = await readdir(directory);
  const folders = names.filter((n) => n.startsWith(prefix)).sort();
  const stale = [...folders.slice(0, Math.max(0, folders.length - options.keep)), ...names.filter((n) => n.includes('.tmp-'))];
  await Promise.all(stale.map((n) => rm(join(directory, n), { recursive: true, force: true })));
}
