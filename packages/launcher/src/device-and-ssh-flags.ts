import type { LaunchOptions } from './launch-options.js';
import type { SshOptions } from './remote-command.js';
import { UsageError } from './usage-error.js';

/** Flags of this file that take a value, for kolorun's argv scan. */
export const deviceAndSshValueFlags: readonly string[] = ['-p', '--ssh-port', '-i', '--ssh-identity-file', '--gpus'];

/**
 * horovodrun's `-p/--ssh-port` and `-i/--ssh-identity-file`, read from commander's options.
 *
 * @example
 * ```ts
 * sshOptionsOf({ sshPort: '2222' }); // { port: 2222 }
 * ```
 */
export function sshOptionsOf(opts: Record<string, string | boolean | undefined>): SshOptions | undefined {
  const port = opts.sshPort as string | undefined;
  const identity = opts.sshIdentityFile as string | undefined;
  if (port === undefined && identity === undefined) return undefined;
  if (port !== undefined && (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    throw new UsageError(`Expected a port from 1 to 65535 for --ssh-port but received ${JSON.stringify(port)}; e.g. --ssh-port 2222`);
  }
  if (identity !== undefined && identity.trim() === '') {
    throw new UsageError('Expected a private key file for --ssh-identity-file but received ""; e.g. --ssh-identity-file ~/.ssh/id_ed25519');
  }
  return { ...(port !== undefined && { port: Number(port) }), ...(identity !== undefined && { identityFile: identity }) };
}

/**
 * `--gpus auto` (each worker gets its local rank) or `--gpus 0,2,4,6` (local rank i gets entry i).
 *
 * @example
 * ```ts
 * gpusOf({ gpus: '1,0' }); // [1, 0]
 * ```
 */
export function gpusOf(opts: Record<string, string | boolean | undefined>): LaunchOptions['gpus'] {
  const text = opts.gpus as string | undefined;
  if (text === undefined) return undefined;
  if (text === 'auto') return 'auto';
  const ids = text.split(',').map((id) => id.trim());
  if (!ids.every((id) => /^\d+$/.test(id)) || new Set(ids).size !== ids.length) {
    throw new UsageError(`Expected 'auto' or distinct GPU indices for --gpus but received ${JSON.stringify(text)}; e.g. --gpus auto or --gpus 0,1,2,3`);
  }
  return ids.map(Number);
}

/**
 * The `CUDA_VISIBLE_DEVICES` value of the worker with local rank `localRank` of `localSize`,
 * or undefined when `--gpus` was not given. Throws {@link UsageError} when a list is too short.
 *
 * @example
 * ```ts
 * visibleDevice([3, 1], 1, 2); // '1'
 * ```
 */
export function visibleDevice(gpus: LaunchOptions['gpus'], localRank: number, localSize: number): string | undefined {
  if (gpus === undefined) return undefined;
  if (gpus === 'auto') return String(localRank);
  const id = gpus[localRank];
  if (id === undefined) {
    throw new UsageError(`Expected at least ${localSize} GPU indices for --gpus (one per worker on a host) but received ${gpus.length} (${gpus.join(',')}); list more GPUs or use --gpus auto`);
  }
  return String(id);
}
