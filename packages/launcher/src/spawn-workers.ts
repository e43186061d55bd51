import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { LinePrefixer, LineTail } from './output-prefix.js';
import type { WorkerPlacement } from './plan.js';
import { sshArgs, type SshOptions } from './remote-command.js';

/** Exit status of one worker: exactly one of the two is non-null. */
export interface WorkerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How to start one worker and where its output goes. */
export interface WorkerSpec {
  readonly placement: WorkerPlacement;
  /** The worker's `KOLO_*` variables. */
  readonly koloEnv: Readonly<Record<string, string>>;
  readonly command: readonly string[];
  readonly cwd: string;
  /** The launcher's environment, inherited by local workers (remote ones get only `koloEnv`). */
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly outputDir: string | undefined;
  readonly tailLines: number;
  /** Port and identity file for remote workers' ssh. */
  readonly ssh?: SshOptions;
}

/** A started worker. */
export interface RunningWorker {
  readonly rank: number;
  readonly host: string;
  /** Local pid (of ssh for remote workers); undefined when the spawn failed. */
  readonly pid: number | undefined;
  /** Resolves when the process exits; a failed spawn counts as exit code 127. */
  readonly exited: Promise<WorkerExit>;
  /** Resolves when its output streams are closed and written out. */
  readonly drained: Promise<void>;
  /** The last lines of its stderr. */
  stderrTail(): string[];
  /** Sends `signal` to the worker's whole process group; false when nothing is left in it. */
  signalGroup(signal: NodeJS.Signals | 0): boolean;
}

/** Copies `source` into the prefixed stream, the raw file (if any) and the tail (if any); resolves when all is written. */
export function pipeStream(source: Readable, prefixer: LinePrefixer, file: WriteStream | undefined, tail?: LineTail): Promise<void> {
  return new Promise((resolve) => {
    source.on('data', (chunk: Buffer) => {
      prefixer.push(chunk);
      tail?.push(chunk);
      file?.write(chunk);
    });
    source.on('error', () => {});
    source.on('close', () => {
      prefixer.flush();
      if (file === undefined) resolve();
      else file.end(() => resolve());
    });
  });
}

/** `<dir>/rank.<rank>/stdout` and `stderr` write streams for `--output-filename`; none without a dir. */
export function outputFiles(dir: string | undefined, rank: number): [WriteStream, WriteStream] | [] {
  if (dir === undefined) return [];
  const rankDir = join(dir, `rank.${rank}`);
  mkdirSync(rankDir, { recursive: true });
  return [createWriteStream(join(rankDir, 'stdout')), createWriteStream(join(rankDir, 'stderr'))];
}

/**
 * Starts one worker in its own process group (`detached`), directly for local hosts and through
 * `ssh -o BatchMode=yes` for remote ones, and tags each output line with `[<rank>]<stdout>: `.
 *
 * @example
 * ```ts
 * const w = spawnWorker({ placement, koloEnv, command: ['node', 'x.js'], cwd, baseEnv: process.env,
 *   stdout: process.stdout, stderr: process.stderr, outputDir: undefined, tailLines: 20 });
 * console.log(await w.exited);
 * ```
 */
export function spawnWorker(spec: WorkerSpec): RunningWorker {
  const { placement, command } = spec;
  const rank = placement.rank;
  const [program, args, env] = placement.remote
    ? ['ssh', sshArgs(placement.host, spec.cwd, spec.koloEnv, command, spec.ssh), spec.baseEnv]
    : [command[0] as string, command.slice(1), { ...spec.baseEnv, ...spec.koloEnv }];
  const child = spawn(program, args, {
    cwd: spec.cwd,
    env,
    detached: true,
    stdio: [placement.remote ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (placement.remote) child.stdin?.end(`${spec.koloEnv.KOLO_JOB_SECRET ?? ''}\n`);
  child.stdin?.on('error', () => {});
  const tail = new LineTail(spec.tailLines);
  const [outFile, errFile] = outputFiles(spec.outputDir, rank);
  const drained = Promise.all([
    pipeStream(child.stdout as Readable, new LinePrefixer(`[${rank}]<stdout>: `, spec.stdout), outFile),
    pipeStream(child.stderr as Readable, new LinePrefixer(`[${rank}]<stderr>: `, spec.stderr), errFile, tail),
  ]).then(() => undefined);
  const exited = new Promise<WorkerExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      tail.note(`kolorun: could not start ${JSON.stringify(program)}: ${error.message}`);
      resolve({ code: 127, signal: null });
    });
  });
  return {
    rank,
    host: placement.host,
    pid: child.pid,
    exited,
    drained,
    stderrTail: () => tail.lines(),
    signalGroup: (signal) => {
      if (child.pid === undefined) return false;
      try {
        process.kill(-child.pid, signal);
        return true;
      } catch {
        return false;
      }
    },
  };
}
