import { requireWorld, resolveGroup } from './group-state.js';
import { GroupMember, type ProcessGroup } from './process-group.js';
import { Work } from './work.js';

/**
 * What a collective returns: a Promise of its result, or a {@link Work} with `asyncOp: true`.
 *
 * @example
 * ```ts
 * const work: CollectiveResult<{ asyncOp: true }, Float32Array> = dist.allReduce(t, { asyncOp: true });
 * ```
 */
export type CollectiveResult<O, R> = O extends {
  /** Options that ask for a Work. */
  readonly asyncOp: true;
}
  ? Work<R>
  : O extends {
        /** Options whose asyncOp is only known at run time. */
        readonly asyncOp: boolean;
      }
    ? boolean extends O['asyncOp']
      ? Promise<R> | Work<R>
      : Promise<R>
    : Promise<R>;

/**
 * Options every collective takes.
 *
 * @example
 * ```ts
 * const common: CommonOptions = { group: pair, asyncOp: true };
 * ```
 */
export interface CommonOptions {
  /** The group to run on; default the world. */
  readonly group?: ProcessGroup;
  /** Return a {@link Work} at once instead of a Promise of the result. */
  readonly asyncOp?: boolean;
}

/** How one call runs. */
export interface CollectiveSpec<R> {
  /** torch's name of the call, for the non-member warning, e.g. `all_reduce`. */
  readonly opName: string;
  readonly group: unknown;
  readonly asyncOp: unknown;
  /** What a non-member gets (torch returns None; here: the input unchanged). */
  readonly fallback: () => R;
  /** Validates synchronously, then returns the run. */
  readonly plan: (group: ProcessGroup) => () => Promise<R>;
  /** The output tensors of a result (for Work.result()); default `[result]`. */
  readonly outputs?: (result: R) => readonly unknown[];
}

/**
 * Runs a collective with torch's calling conventions: argument errors throw at once, a rank
 * outside the group warns `Running <op> on global rank R which does not belong to the given
 * group.` and does nothing, and `asyncOp: true` returns a Work instead of a Promise.
 *
 * @example
 * ```ts
 * return runCollective({ opName: 'barrier', group, asyncOp, fallback: () => undefined, plan: (g) => () => run(g) });
 * ```
 */
export function runCollective<R>(spec: CollectiveSpec<R>): Promise<R> | Work<R> {
  const world = requireWorld();
  const group = resolveGroup(spec.group);
  if (typeof spec.asyncOp !== 'boolean' && spec.asyncOp !== undefined) {
    throw new TypeError(`Expected a boolean for asyncOp but received ${typeof spec.asyncOp}`);
  }
  let running: Promise<R>;
  if (group === GroupMember.NON_GROUP_MEMBER || group.rank() < 0) {
    process.emitWarning(`Running ${spec.opName} on global rank ${world.world.rank()} which does not belong to the given group.`);
    running = Promise.resolve(spec.fallback());
  } else {
    running = spec.plan(group)();
  }
  return spec.asyncOp === true ? new Work(running, spec.outputs) : running;
}
