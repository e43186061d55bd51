import { spawn } from 'node:child_process';
import { LaunchError } from './usage-error.js';

/**
 * Quotes one word for a POSIX shell; safe words stay bare so commands remain readable.
 *
 * @example
 * ```ts
 * shellQuote("it's"); // 'it'\''s'
 * ```
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** How kolorun reaches remote hosts, as horovodrun's `-p/--ssh-port` and `-i/--ssh-identity-file`. */
export interface SshOptions {
  /** Port of the remote sshd; default ssh's own (22 or ~/.ssh/config). `--ssh-port`. */
  readonly port?: number;
  /** Private key file passed as `ssh -i`. `--ssh-identity-file`. */
  readonly identityFile?: string;
}

/**
 * The ssh options every kolorun connection uses: BatchMode (never prompt), then the port and
 * identity file when given.
 *
 * @example
 * ```ts
 * sshOptionArgs({ port: 2222, identityFile: '/k/id' }); // ['-o', 'BatchMode=yes', '-p', '2222', '-i', '/k/id']
 * ```
 */
export function sshOptionArgs(ssh: SshOptions = {}): string[] {
  return [
    '-o', 'BatchMode=yes',
    ...(ssh.port !== undefined ? ['-p', String(ssh.port)] : []),
    ...(ssh.identityFile !== undefined ? ['-i', ssh.identityFile] : []),
  ];
}

/**
 * Arguments for `ssh` that start one worker on `host`. The job secret is not on the command line
 * (where `ps` on either machine would show it): the remote shell reads it from stdin, so the caller
 * writes `secret + "\n"` to ssh's stdin. The remote login shell must be POSIX (sh, bash, zsh).
 *
 * @example
 * ```ts
 * sshArgs('node2', '/work', { KOLO_RANK: '2' }, ['node', 'train.js']);
 * // ['-o', 'BatchMode=yes', 'node2', "IFS= read -r KOLO_JOB_SECRET && export KOLO_JOB_SECRET && cd /work && exec env KOLO_RANK=2 node train.js"]
 * ```
 */
export function sshArgs(
  host: string,
  cwd: string,
  env: Readonly<Record<string, string>>,
  command: readonly string[],
  ssh: SshOptions = {},
): string[] {
  const assignments = Object.entries(env)
    .filter(([key]) => key !== 'KOLO_JOB_SECRET')
    .map(([key, value]) => shellQuote(`${key}=${value}`));
  const remote = [
    'IFS= read -r KOLO_JOB_SECRET && export KOLO_JOB_SECRET &&',
    `cd ${shellQuote(cwd)} &&`,
    'exec env',
    ...assignments,
    ...command.map(shellQuote),
  ].join(' ');
  return [...sshOptionArgs(ssh), host, remote];
}

/**
 * Checks that every remote host answers `ssh -o BatchMode=yes <host> true` (with the port and
 * identity of `ssh`) within `timeoutMs` (what `--start-timeout` bounds in -H jobs); throws
 * {@link LaunchError} naming the first that did not.
 *
 * @example
 * ```ts
 * await checkSshHosts(['node2'], 30_000);
 * ```
 */
export async function checkSshHosts(hosts: readonly string[], timeoutMs: number, ssh: SshOptions = {}): Promise<void> {
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  await Promise.all(hosts.map((host) => new Promise<void>((resolve, reject) => {
    const args = [...sshOptionArgs(ssh), '-o', `ConnectTimeout=${seconds}`, host, 'true'];
    const child = spawn('ssh', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const fail = (why: string): void => reject(new LaunchError(
      `Expected host ${host} to answer ssh within ${seconds} s (--start-timeout) but received ${why}; check passwordless ssh with: ssh ${sshOptionArgs(ssh).map(shellQuote).join(' ')} ${host} true`,
    ));
    child.on('error', (error) => { clearTimeout(timer); fail(error.message); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else fail(signal ? 'no answer' : `exit code ${code}: ${stderr.trim().split('\n').pop() ?? ''}`);
    });
  })));
}
