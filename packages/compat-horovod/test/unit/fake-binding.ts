/**
 * A fake NativeBinding for unit tests only: a one-rank engine that records every request and
 * answers as a single rank would (results equal the scaled input). Ids are deliberately not 0..n.
 */
import type { HostArray, InitOptions } from '@kolo/core';
import { fromFloat16Bits, toFloat16Bits } from '../../src/float16.js';

type NativeBinding = NonNullable<InitOptions['binding']>;
type NativeEngine = Awaited<ReturnType<NativeBinding['startEngine']>>;
type NativeRequest = Parameters<NativeEngine['enqueue']>[0][number];
type NativeResult = Awaited<ReturnType<NativeEngine['enqueue']>>[number];

type Native = NativeBinding & { readonly requests: NativeRequest[]; readonly timeline: unknown[][] };

const constants = {
  dtypes: { float32: 11, float64: 12, int32: 13, int64: 14, uint8: 15, int8: 16, float16: 17 },
  requestTypes: { allreduce: 21, allgather: 22, broadcast: 23, alltoall: 24, reducescatter: 25, barrier: 26, join: 27, addProcessSet: 28, removeProcessSet: 29 },
  reduceOps: { average: 31, sum: 32, min: 33, max: 34, product: 35 },
  errorCodes: ['KOLO_SHUT_DOWN', 'KOLO_MISMATCH', 'KOLO_DUPLICATE_NAME', 'KOLO_TIMEOUT', 'KOLO_COMMUNICATION', 'KOLO_UNSUPPORTED', 'KOLO_INTERNAL'],
} as const;

/** The fake's ids, for assertions on recorded requests. */
export const fakeIds = constants;

function answer(r: NativeRequest): NativeResult {
  const input = r.input as HostArray;
  if (r.type === constants.requestTypes.allreduce || r.type === constants.requestTypes.broadcast) {
    const factor = r.type === constants.requestTypes.allreduce ? r.prescale * r.postscale : 1;
    const half = r.dtype === constants.dtypes.float16;
    // A packed group (groupedAllreduce) carries its arrays in `parts`.
    const inputs = r.parts?.inputs ?? [input];
    const outputs = r.parts?.outputs ?? [r.output as HostArray];
    inputs.forEach((data, k) => {
      const out = outputs[k] as HostArray;
      data.forEach((v: number | bigint, i: number) => {
        if (typeof v === 'bigint') out[i] = v;
        else out[i] = half ? toFloat16Bits(fromFloat16Bits(v) * factor) : v * factor;
      });
    });
    return {};
  }
  if (r.type === constants.requestTypes.join) return { lastJoinedRank: 0 };
  if (r.type === constants.requestTypes.addProcessSet) return { splits: [5] };
  if (input === undefined) return {};
  return { data: input.slice().buffer as ArrayBuffer, splits: [r.shape[0] ?? 0] };
}

/**
 * A fresh fake binding whose engine has `capabilities().transports` equal to `transports`.
 *
 * @example
 * ```ts
 * await hvd.init({ binding: createFakeBinding(['gloo']) });
 * ```
 */
export function createFakeBinding(transports: string[] = ['gloo']): Native {
  const requests: NativeRequest[] = [];
  const timeline: unknown[][] = [];
  const run = (batch: readonly NativeRequest[]): NativeResult[] => {
    requests.push(...batch);
    return batch.map(answer);
  };
  return {
    constants,
    requests,
    timeline,
    capabilities: () => ({ transports, dtypes: Object.keys(constants.dtypes), ops: [], reduceOps: [] }),
    startEngine: async () => ({
      enqueue: async (batch) => run(batch),
      enqueueBatch: (calls, settle) => {
        const outcomes = calls.map((c) => run(c.requests));
        queueMicrotask(() => settle(calls.map((_, i) => i), outcomes));
      },
      enqueueSync: (batch) => run(batch),
      startTimeline: (path: string, markCycles: boolean) => void timeline.push(['start', path, markCycles]),
      stopTimeline: () => void timeline.push(['stop']),
      tuning: () => ({ fusionThresholdBytes: 128 * 1024 * 1024, cycleTimeMs: 1, searching: false }),
      shutdown: async () => undefined,
    }),
  };
}
