/**
 * The typed contract of the native addon `kolo_native.node`. This file is the only description
 * of what the C++ binding exports; every constant (dtype ids, op ids, error codes) is read from
 * the addon at load time, never copied by hand. The engine's configuration is in
 * engine-config.ts.
 */
import type { NativeEngineConfig, NativeTuning } from './engine-config.js';

/** Any TypedArray the engine can move. float16 travels as Uint16Array storage. */
export type HostArray =
  | Float32Array
  | Float64Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Int8Array
  | Uint16Array;

/** Name → numeric id tables exported by the addon. */
export interface NativeConstants {
  /** `float32, float64, int32, int64, uint8, int8, float16`. */
  readonly dtypes: Readonly<Record<string, number>>;
  /** Request types: `allreduce, allgather, broadcast, alltoall, reducescatter, barrier, join, addProcessSet, removeProcessSet`. */
  readonly requestTypes: Readonly<Record<string, number>>;
  /** Reductions: `average, sum, min, max, product`. */
  readonly reduceOps: Readonly<Record<string, number>>;
  /** Error codes the engine sets on a rejected request, e.g. `KOLO_MISMATCH`. */
  readonly errorCodes: readonly string[];
}

/** One request to the engine. Buffers stay pinned until the request completes. */
export interface NativeRequest {
  /** The operation, an id from `NativeConstants.requestTypes`. */
  readonly type: number;
  /** The name ranks match requests by; the same on every rank. */
  readonly name: string;
  /** The element type, an id from `NativeConstants.dtypes`. */
  readonly dtype: number;
  /** The tensor's dimensions; the buffer holds their product of elements. */
  readonly shape: readonly number[];
  /** allreduce, reducescatter: the reduction, an id from `NativeConstants.reduceOps`. */
  readonly reduceOp: number;
  /** broadcast: the rank whose data everyone receives. */
  readonly root: number;
  /** allreduce, reducescatter: factor applied to the input before reducing. */
  readonly prescale: number;
  /** allreduce, reducescatter: factor applied to the result after reducing. */
  readonly postscale: number;
  /** alltoall: rows of the first dimension sent to each rank; empty means an even split. */
  readonly splits: readonly number[];
  /** The process set's engine id; 0 (default) is every rank. */
  readonly processSet?: number;
  /** Not needed for barrier and join. */
  readonly input?: HostArray;
  /**
   * allreduce, broadcast: where the result goes (may be `input` itself for in-place).
   * allgather (optional): where the gathered rows go, written only when its byte length is the
   * gathered size; the result then has no `data`. Otherwise the result's `data` is a new buffer.
   */
  readonly output?: HostArray;
  /**
   * allreduce only: several arrays of one dtype reduced as one request (a packed group, as
   * `groupedAllreduce` sends): one name, one negotiation and one cache entry for all of them.
   * `shape` is then `[their total elements]`, and `input` and `output` are unused. Only
   * `enqueueBatch` and `enqueueSync` take it.
   */
  readonly parts?: NativeParts;
}

/** The arrays of a packed group ({@link NativeRequest.parts}), index for index. */
export interface NativeParts {
  /** Each array's dimensions; ranks must agree on every one, as on a shape. */
  readonly shapes: readonly (readonly number[])[];
  /** Each array's data, read where it lies. */
  readonly inputs: readonly HostArray[];
  /** Where each result goes (an entry may be its input, for in-place). */
  readonly outputs: readonly HostArray[];
}

/** What a completed request yields. */
export interface NativeResult {
  /**
   * allgather (unless it wrote into the request's `output`), alltoall, reducescatter: a new
   * buffer holding the result bytes.
   */
  readonly data?: ArrayBuffer;
  /**
   * allgather: the first dimension each rank contributed (absent where the engine gathered into
   * the request's `output` and a row has elements: the output's length then gives the rows).
   * alltoall: rows received from each rank.
   */
  readonly splits?: number[];
  /** join: the last rank that joined. */
  readonly lastJoinedRank?: number;
}

/** A rejection from the engine carries a code (one of `NativeConstants.errorCodes`). */
export interface NativeError extends Error {
  /** One of `NativeConstants.errorCodes`, e.g. `KOLO_MISMATCH`. */
  readonly code: string;
  /** The rank that failed first, when the engine knows it (communication failures). */
  readonly failedRank?: number;
}

/** One call of {@link NativeEngine.enqueueBatch}: what one `enqueue(requests, grouped)` takes. */
export interface NativeCall {
  /** The requests, as for `enqueue`. */
  readonly requests: readonly NativeRequest[];
  /** Negotiate and complete the requests as one group. */
  readonly grouped: boolean;
}

/**
 * Receives finished calls of one {@link NativeEngine.enqueueBatch}: for `i` below `count`,
 * `indices[i]` is a call's position in the batch and `outcomes[i]` its results (an array, as
 * `enqueue` resolves with) or its NativeError; where `outcomes[i]` is undefined the call's
 * results are `done` (the shared, frozen results of a call of one request that carries nothing,
 * as most calls), so a delivery of many such calls builds no value per call. The addon reuses
 * `indices` from one delivery to the next: it can be longer than `count`, and holds these
 * indices only during the call. Without `count`, read all of `indices`. Must not throw.
 */
export type NativeSettle = (
  indices: ArrayLike<number>,
  outcomes: readonly (NativeResult[] | NativeError | undefined)[],
  done?: readonly NativeResult[],
  count?: number,
) => void;

/**
 * What {@link NativeEngine.enqueueRepeat} returns when every call of the batch finished inside
 * it with nothing to report: the caller settles each call as done (with results like the
 * `done` a settle function gets: one result that carries nothing).
 */
export const allCallsDone = 2;

/** A running engine: one background thread that negotiates, fuses and executes collectives. */
export interface NativeEngine {
  /**
   * Queues requests. With `grouped` they are negotiated and completed as one group. Resolves
   * once every request completed; rejects with a NativeError.
   */
  enqueue(requests: readonly NativeRequest[], grouped: boolean): Promise<NativeResult[]>;
  /**
   * Queues many calls in one crossing and wakes the engine once: for the calls one turn of JS
   * code submits together, without a promise per call. Each call completes on its own, exactly
   * as one `enqueue` would, and is reported once through `settle` (together with others that
   * finished in the same engine cycle). A call that fails at once (a malformed request, a
   * duplicate name, a stopped engine) is settled before `enqueueBatch` returns.
   *
   * With `keep`, the engine keeps the batch when every call was queued and returns a token for
   * {@link NativeEngine.enqueueRepeat}; otherwise it returns undefined.
   */
  enqueueBatch(calls: readonly NativeCall[], settle: NativeSettle, keep?: boolean): number | undefined;
  /**
   * Queues again the calls of the batch kept under `token`, as `enqueueBatch` would queue them,
   * without reading them again: the caller vouches that they are the same requests over the
   * same arrays, each still of the length it had (its memory is then where it was). Returns
   * false, queueing nothing, when the engine no longer keeps that batch (it keeps the 256 queued
   * most recently), and {@link allCallsDone} instead of true when every call finished inside
   * this call with nothing to report (no results, no error): `settle` is then not called, and
   * the caller settles each call as done itself. Absent from bindings that do not keep batches.
   */
  enqueueRepeat?(token: number, settle: NativeSettle): boolean | typeof allCallsDone;
  /**
   * The token the engine will keep the next `enqueueBatch` or `enqueueSync` batch under when it
   * queues every call, and asks it to keep that batch (`enqueueBatch(..., true)` asks itself).
   * Absent where `enqueueRepeat` is.
   */
  keepNextBatch?(): number;
  /**
   * `enqueueSync` of the one-call batch kept under `token` (see `enqueueRepeat`), or undefined,
   * queueing nothing, when the engine no longer keeps it. Absent where `enqueueRepeat` is.
   */
  enqueueSyncRepeat?(token: number): NativeResult[] | undefined;
  /** Same as `enqueue`, but blocks the calling thread until completion and throws on failure. */
  enqueueSync(requests: readonly NativeRequest[], grouped: boolean): NativeResult[];
  /** Starts writing the timeline to `path` (rank 0 writes; other ranks ignore it) from the next cycle. */
  startTimeline(path: string, markCycles: boolean): void;
  /** Stops and closes the timeline file. */
  stopTimeline(): void;
  /** The fusion threshold and cycle time in force (the autotuner changes them on every rank at once). */
  tuning(): NativeTuning;
  /**
   * Whether this job's collectives read the peers' memory with one copy (the shared-memory
   * transport, as `singleCopy` and its trial decided). Optional for fakes.
   */
  singleCopy?(): boolean;
  /** Coordinated shutdown: pending requests on every rank fail with `KOLO_SHUT_DOWN`. Idempotent. */
  shutdown(): Promise<void>;
}

/** Everything `kolo_native.node` exports. */
export interface NativeBinding {
  /** Name → id tables and error codes, read from the addon. */
  readonly constants: NativeConstants;
  /** Transports, dtypes and ops compiled into this build. */
  capabilities(): {
    /** `gloo`, plus `mpi` and `nccl` when they were found at build time. */
    transports: string[];
    /** The element types, as in `NativeConstants.dtypes`. */
    dtypes: string[];
    /** The operations, as in `NativeConstants.requestTypes`. */
    ops: string[];
    /** The reductions, as in `NativeConstants.reduceOps`. */
    reduceOps: string[];
  };
  /** Connects to the peers (rendezvous through the store) and starts the background thread. */
  startEngine(config: NativeEngineConfig): Promise<NativeEngine>;
}
