import { allreduce, join as coreJoin, UnsupportedError } from '@kolo/core';
import type { ProcessGroup } from '../process-group.js';

/**
 * Options of `DistributedDataParallel.join`, with torch's defaults.
 *
 * @example
 * ```ts
 * await ddp.join(train, { divideByInitialWorldSize: false } satisfies JoinOptions);
 * ```
 */
export interface JoinOptions {
  /** Divide gradients by the initial world size (true, default) or by the ranks still training. */
  readonly divideByInitialWorldSize?: boolean;
  /** False runs `fn` without join support; default true. */
  readonly enable?: boolean;
  /** Not supported (throws): Kolo's join cannot make every rank raise when the first runs out of data. */
  readonly throwOnEarlyTermination?: boolean;
}

/** What `backward` needs while inside a join. */
export interface JoinState {
  readonly divideByInitialWorldSize: boolean;
  /** Allreduces a 1 per training rank (joined ranks add 0): how many ranks still train. */
  countActive(): Promise<number>;
}

let joins = 0;

/**
 * Runs `fn` in a join context: while it runs, `backward` first counts the ranks still training
 * (torch's "ones" allreduce); after it returns this rank joins (Kolo's `join`: it answers the
 * others' allreduces with zeros) until every rank has; then the group's request numbering is
 * re-aligned (joined ranks skipped requests) and the last rank to join, which trained longest,
 * broadcasts its model to the others (torch's `_sync_final_model`).
 *
 * @example
 * ```ts
 * await joinUneven(loop, { group: world, options: {}, set: (s) => (state = s) });
 * ```
 */
export async function joinUneven<T>(
  fn: () => T | Promise<T>,
  spec: {
    group: ProcessGroup;
    options: JoinOptions;
    set: (state: JoinState | undefined) => void;
    /** Copies the model of `lastJoined` (the rank that trained longest) to every rank. */
    syncFinal: (lastJoined: number, name: string) => Promise<void>;
  },
): Promise<T> {
  const { group, options } = spec;
  if (options.enable === false) return fn();
  if (options.throwOnEarlyTermination === true) {
    throw new UnsupportedError('join({ throwOnEarlyTermination: true }) is not supported: a joined Kolo rank cannot raise on the others. Leave it false.', { opName: 'join' });
  }
  if (group.processSet !== undefined) {
    throw new UnsupportedError('DistributedDataParallel.join works on the world group only (Kolo joins are world-wide).', { opName: 'join' });
  }
  const round = joins++;
  spec.set({
    divideByInitialWorldSize: options.divideByInitialWorldSize !== false,
    countActive: async () => {
      const count = Int32Array.of(1);
      await allreduce(count, { op: 'sum', name: group.nextName('ddp_join_count'), output: count });
      return count[0] as number;
    },
  });
  try {
    const result = await fn();
    const lastJoined = await coreJoin();
    const sequence = Float64Array.of(group.sequence);
    await allreduce(sequence, { op: 'max', name: `torch.${group.name}.join${round}.sequence`, output: sequence });
    group.sequence = sequence[0] as number;
    await spec.syncFinal(lastJoined, group.nextName('ddp_join_final'));
    return result;
  } finally {
    spec.set(undefined);
  }
}
