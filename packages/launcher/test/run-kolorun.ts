import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { scratchBuild } from './scratch-build.js';

/** What one kolorun run produced. */
export interface KolorunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Absolute path of a worker script in test/fixtures. */
export const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Starts `node <cli> ...args`; `started.child` is the kolorun process. */
export function startKolorun(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; result: Promise<KolorunResult>; stdoutSoFar: () => string } {
  const build = scratchBuild();
  const child = spawn(process.execPath, [build.cli, ...args], {
    env: { ...process.env, TEST_KOLO_STORE_MODULE: build.store, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const result = new Promise<KolorunResult>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, result, stdoutSoFar: () => stdout };
}

/** Runs kolorun to completion. */
export function runKolorun(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<KolorunResult> {
  return startKolorun(args, env).result;
}

/** Resolves once `predicate()` is true (polled every 20 ms), or rejects after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True while a process with this pid runs (a zombie waiting to be reaped counts as gone). */
export function processExists(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
