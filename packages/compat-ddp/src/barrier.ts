import { barrier as coreBarrier, expectInteger } from '@kolo/core';
import { runCollective, type CollectiveResult, type CommonOptions } from './collective.js';
import { requireWorld, resolveGroup } from './group-state.js';
import { pairSet } from './pair-sets.js';
import { GroupMember } from './process-group.js';
import type { ProcessGroup } from './process-group.js';
import { runtimeError } from './torch-errors.js';

/**
 * torch's `barrier`: resolves once every rank of the group has reached it.
 *
 * @example
 * ```ts
 * if (dist.getRank() === 0) await saveCheckpoint();
 * await dist.barrier();
 * ```
 */
export function barrier<O extends CommonOptions = CommonOptions>(options?: O): CollectiveResult<O, void> {
  const o: CommonOptions = options ?? {};
  return runCollective<void>({
    opName: 'barrier',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => undefined,
    outputs: () => [],
    plan: (group) => {
      const name = group.nextName('barrier');
      const processSet = group.processSet;
      return async () => coreBarrier({ name, ...(processSet && { processSet }) });
    },
  }) as CollectiveResult<O, void>;
}

/**
 * Options of {@link monitoredBarrier}.
 *
 * @example
 * ```ts
 * await dist.monitoredBarrier({ timeoutMs: 10_000, waitAllRanks: true } satisfies MonitoredBarrierOptions);
 * ```
 */
export interface MonitoredBarrierOptions {
  /** The process group to wait on; default the world. */
  readonly group?: ProcessGroup;
  /** How long the group's first rank waits for the others; default the process group's timeout. */
  readonly timeoutMs?: number;
  /** Report every rank that did not arrive instead of the first one. */
  readonly waitAllRanks?: boolean;
}

/** Resolves true when `p` settles within `ms`, false otherwise. */
function within(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([p.then(() => true), late]).finally(() => clearTimeout(timer));
}

/**
 * torch's `monitored_barrier`: the group's first rank waits for each other rank (a two-rank
 * barrier per rank) and, when some do not arrive within `timeoutMs`, throws torch's
 * `[Rank 0]: Rank 2 failed to pass monitoredBarrier in 1000 ms` (with `waitAllRanks`:
 * `[Rank 0]: Ranks 1, 2 failed to pass …`); then it releases the others, which throw torch's
 * `Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv
 * from rank 0. …` when that release does not come. Works on every backend (torch: Gloo only).
 *
 * @example
 * ```ts
 * await dist.monitoredBarrier({ timeoutMs: 30_000 });
 * ```
 */
export async function monitoredBarrier(options: MonitoredBarrierOptions = {}): Promise<void> {
  const state = requireWorld();
  const group = resolveGroup(options.group);
  if (group === GroupMember.NON_GROUP_MEMBER || group.rank() < 0) return;
  const timeoutMs = expectInteger(options.timeoutMs ?? state.timeoutMs, { name: 'timeoutMs', min: 1 });
  const base = group.nextName('monitored_barrier');
  const me = state.world.rank();
  const first = group.ranks[0] as number;
  const pairBarrier = (other: number, phase: string): Promise<void> => {
    const processSet = pairSet(state, { a: me, b: other, opName: 'monitoredBarrier' });
    return coreBarrier({ name: `${base}.${phase}.${Math.min(me, other)}-${Math.max(me, other)}`, ...(processSet && { processSet }) });
  };
  if (me !== first) {
    const released = (async () => {
      await pairBarrier(first, 'arrive');
      await pairBarrier(first, 'release');
    })();
    if (!(await within(released, timeoutMs))) {
      throw runtimeError(`Rank ${me} successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.`);
    }
    return;
  }
  const others = group.ranks.slice(1);
  const arrived = await Promise.all(others.map((r) => within(pairBarrier(r, 'arrive'), timeoutMs)));
  const failed = others.filter((_, i) => !arrived[i]);
  if (failed.length > 0) {
    const text = options.waitAllRanks === true ? `Ranks ${failed.join(', ')}` : `Rank ${failed[0]}`;
    throw runtimeError(`[Rank 0]: ${text} failed to pass monitoredBarrier in ${timeoutMs} ms`);
  }
  await Promise.all(others.map((r) => pairBarrier(r, 'release')));
}
