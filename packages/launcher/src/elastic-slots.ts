import type { ElasticTopology } from './elastic.js';
import { isLocalHost } from './hosts.js';
import type { WorkerPlacement } from './plan.js';

/**
 * The hosts of the slots host discovery lists beyond the workers running there, in listed order,
 * one entry per new worker, never past `maxNp` workers in all.
 *
 * @example
 * ```ts
 * freeSlots(new Map([['a', 2], ['b', 2]]), [{ host: 'a' }], 3); // ['a', 'b']
 * ```
 */
export function freeSlots(hosts: ReadonlyMap<string, number>, running: readonly { readonly host: string }[], maxNp: number): string[] {
  const added: string[] = [];
  let total = running.length;
  for (const [host, slots] of hosts) {
    const used = running.filter((w) => w.host === host).length;
    for (let s = used; s < slots && total < maxNp; s += 1, total += 1) added.push(host);
  }
  return added;
}

/**
 * The workers beyond the slots host discovery lists for their host (a host not listed has
 * none), newest (highest `idOf`) first.
 *
 * @example
 * ```ts
 * excessWorkers(new Map([['a', 1]]), [w0a, w1a, w2b], (w) => w.rank); // [w2b, w1a]
 * ```
 */
export function excessWorkers<W extends { readonly host: string }>(hosts: ReadonlyMap<string, number>, running: readonly W[], idOf: (w: W) => number): W[] {
  const newestFirst = (a: W, b: W): number => idOf(b) - idOf(a);
  const excess: W[] = [];
  for (const host of new Set(running.map((w) => w.host))) {
    const onHost = running.filter((w) => w.host === host).sort(newestFirst);
    excess.push(...onHost.slice(0, Math.max(0, onHost.length - (hosts.get(host) ?? 0))));
  }
  return excess.sort(newestFirst);
}

/**
 * Where a worker added on `host` runs: as the job's first workers there did, or, on a new host,
 * locally on 127.0.0.1 or through ssh.
 *
 * @example
 * ```ts
 * placementOn('localhost', topology, plan.workers).bindAddress; // '127.0.0.1'
 * ```
 */
export function placementOn(host: string, topology: ElasticTopology, placements: readonly WorkerPlacement[]): WorkerPlacement {
  const known = placements.find((p) => p.host === host);
  const remote = known?.remote ?? !isLocalHost(host);
  return { ...topology, host, remote, bindAddress: known?.bindAddress ?? (remote ? host : '127.0.0.1') };
}
