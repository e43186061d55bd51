import { existsSync, mkdirSync, statSync } from 'node:fs';
import { expectInteger, StoreServer, type InitOptions } from '@kolo/core';
import type { Rendezvous } from './init-method.js';
import { valueError } from './torch-errors.js';

/** What `@kolo/core`'s `init` gets, and the store this rank hosts. */
export interface StartedRendezvous {
  readonly init: InitOptions;
  readonly store: StoreServer | undefined;
}

const loopback = (host: string): boolean => /^(localhost|127\.\d+\.\d+\.\d+|::1)$/.test(host);

/**
 * The store secret of a `tcp://` job: `KOLO_JOB_SECRET` when set (then the store authenticates
 * every rank), else one derived from the address, which every rank knows: like torch's TCPStore
 * it keeps jobs apart but does not authenticate.
 *
 * @example
 * ```ts
 * tcpSecret('10.0.0.1', 23456, {}); // 'torch-tcp:10.0.0.1:23456'
 * ```
 */
export function tcpSecret(host: string, port: number, env: Readonly<Record<string, string | undefined>>): string {
  return env.KOLO_JOB_SECRET || `torch-tcp:${host}:${port}`;
}

function checkRanks(rank: number, worldSize: number): void {
  expectInteger(worldSize, { name: 'worldSize', min: 1 });
  expectInteger(rank, { name: 'rank', min: 0, max: worldSize - 1 });
}

function prepareDirectory(path: string): void {
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw valueError(
      `Error initializing torch.distributed using file:// rendezvous: ${path} is a file; Kolo's file ` +
        'store is a directory shared by every rank. Pass a directory path that is new for this job.',
    );
  }
  mkdirSync(path, { recursive: true });
}

/**
 * Prepares a rendezvous: for `tcp://` rank 0 starts a Kolo store at host:port (torch's rank 0
 * hosts its TCPStore there too) and every rank connects to it; for `file://` the path is a
 * directory every rank can reach (created when missing); `env://` under a launcher is left to
 * `@kolo/core`'s environment handling.
 *
 * @example
 * ```ts
 * const { init, store } = await startRendezvous({ kind: 'tcp', host: '127.0.0.1', port: 29500, rank: 0, worldSize: 2 }, process.env);
 * ```
 */
export async function startRendezvous(
  plan: Rendezvous,
  env: Readonly<Record<string, string | undefined>>,
): Promise<StartedRendezvous> {
  if (plan.kind === 'launcher') return { init: {}, store: undefined };
  checkRanks(plan.rank, plan.worldSize);
  const topology = { rank: plan.rank, size: plan.worldSize };
  if (plan.kind === 'file') {
    prepareDirectory(plan.path);
    return { init: { ...topology, store: { kind: 'file', path: plan.path } }, store: undefined };
  }
  const secret = tcpSecret(plan.host, plan.port, env);
  const store =
    plan.rank === 0
      ? await StoreServer.listen({ host: loopback(plan.host) ? plan.host : '0.0.0.0', port: plan.port, secret })
      : undefined;
  return { init: { ...topology, store: { kind: 'tcp', host: plan.host, port: plan.port, secret } }, store };
}
