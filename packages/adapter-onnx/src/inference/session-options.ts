import { localRank } from '@kolo/core';
import type { InferenceSession } from 'onnxruntime-node';

/**
 * Where a distributed session runs: `cpu`, or `cuda` on the GPU numbered by the local rank.
 *
 * @example
 * ```ts
 * const device: InferenceDevice = 'cuda';
 * ```
 */
export type InferenceDevice = 'cpu' | 'cuda';

/**
 * The ORT session options for `device`: for `cuda`, the CUDA execution provider with
 * `deviceId = localRank()` (one GPU per local worker, as Horovod pins them), then CPU as the
 * fallback for kernels CUDA lacks. `cpu` leaves the options as given.
 *
 * @example
 * ```ts
 * sessionOptionsFor({ device: 'cuda', sessionOptions: { intraOpNumThreads: 2 } });
 * // { intraOpNumThreads: 2, executionProviders: [{ name: 'cuda', deviceId: localRank() }, 'cpu'] }
 * ```
 */
export function sessionOptionsFor(options: {
  device: InferenceDevice;
  sessionOptions: InferenceSession.SessionOptions | undefined;
}): InferenceSession.SessionOptions {
  const base = options.sessionOptions ?? {};
  if (options.device === 'cpu') return base;
  return { ...base, executionProviders: [{ name: 'cuda', deviceId: localRank() }, 'cpu'] };
}
