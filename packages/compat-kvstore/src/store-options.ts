import type { PushOp } from './local-reduce.js';

/**
 * Options of `init`. snake_case spellings (`param_only`) are accepted too.
 *
 * @example
 * ```ts
 * await store.init('acc', buffer, { paramOnly: true } satisfies InitOptions);
 * ```
 */
export interface InitOptions {
  /** AIACC's `param_only`: a plain reduction buffer (any op; the optimizer never applies). */
  readonly paramOnly?: boolean | 0 | 1;
  /** Logical shape of each value (TypedArrays have none); its first dimension is rowSparsePull's rows. */
  readonly shape?: readonly number[];
  /** Accepted for MXNet compatibility; never changes results. */
  readonly priority?: number;
}

/**
 * Options of `push`.
 *
 * @example
 * ```ts
 * await store.push('epoch_size_max', size, { op: 'max' } satisfies PushOptions);
 * ```
 */
export interface PushOptions {
  /** The reduction across values and workers; default `sum` (AIACC's PerseusOp). */
  readonly op?: PushOp;
  /** Accepted for MXNet compatibility; never changes results. */
  readonly priority?: number;
}

/**
 * Options of `pull`.
 *
 * @example
 * ```ts
 * await store.pull(3, { out: weight } satisfies PullOptions<Float32Array>);
 * ```
 */
export interface PullOptions<O> {
  /** Where the values go: one output per key, or a list per key (every output gets the value). */
  readonly out: O | readonly O[] | readonly (O | readonly O[])[];
  /** Accepted for MXNet compatibility; never changes results. */
  readonly priority?: number;
  /** MXNet's flag for sparse values; Kolo stores dense values only. */
  readonly ignoreSparse?: boolean;
}

/**
 * Options of `pushpull`.
 *
 * @example
 * ```ts
 * await store.pushpull(0, grad, { out: weight } satisfies PushpullOptions<Float32Array>);
 * ```
 */
export interface PushpullOptions<O> extends PushOptions {
  /** Where the results go; default the pushed values themselves. */
  readonly out?: O | readonly O[] | readonly (O | readonly O[])[];
}

/**
 * Options of `broadcast`.
 *
 * @example
 * ```ts
 * await store.broadcast(0, weight, { out: weight } satisfies BroadcastOptions<Float32Array>);
 * ```
 */
export interface BroadcastOptions<O> extends Omit<InitOptions, 'priority'> {
  /** Where rank 0's values go. */
  readonly out: O | readonly O[] | readonly (O | readonly O[])[];
  /** Accepted for MXNet compatibility; never changes results. */
  readonly priority?: number;
}

/**
 * Options of `rowSparsePull`.
 *
 * @example
 * ```ts
 * await store.rowSparsePull('embed', { out: dense, rowIds: [0, 5] } satisfies RowSparsePullOptions<Float32Array>);
 * ```
 */
export interface RowSparsePullOptions<O> {
  /** Dense outputs the size of the stored value; rows not requested become 0. */
  readonly out: O | readonly O[] | readonly (O | readonly O[])[];
  /** Rows to pull: one list for every output, or one per output. */
  readonly rowIds: readonly number[] | Int32Array | readonly (readonly number[] | Int32Array)[];
  /** Accepted for MXNet compatibility; never changes results. */
  readonly priority?: number;
}

/**
 * Options of `saveOptimizerStates`.
 *
 * @example
 * ```ts
 * await store.saveOptimizerStates('opt.states', { dumpOptimizer: true } satisfies SaveStatesOptions);
 * ```
 */
export interface SaveStatesOptions {
  /** Also save the optimizer's name and hyper-parameters; default false. */
  readonly dumpOptimizer?: boolean;
}
