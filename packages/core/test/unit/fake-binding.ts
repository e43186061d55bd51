/**
 * A fake NativeBinding for unit tests only. Its engine runs every request locally as if `size`
 * ranks took part and every peer submitted exactly what this rank submitted ("mirrored peers"),
 * so results are predictable: a sum is `size × x`, an allgather repeats the input `size` times.
 * Its numeric ids are deliberately not 0..n so hard-coded ids would be caught.
 */
import type {
  HostArray,
  NativeBinding,
  NativeEngine,
  NativeEngineConfig,
  NativeRequest,
  NativeResult,
} from '@kolo/native';

export const fakeConstants = {
  dtypes: { float32: 11, float64: 12, int32: 13, int64: 14, uint8: 15, int8: 16, float16: 17 },
  requestTypes: {
    allreduce: 21,
    allgather: 22,
    broadcast: 23,
    alltoall: 24,
    reducescatter: 25,
    barrier: 26,
    join: 27,
  },
  reduceOps: { average: 31, sum: 32, min: 33, max: 34, product: 35 },
  errorCodes: [
    'KOLO_SHUT_DOWN',
    'KOLO_MISMATCH',
    'KOLO_DUPLICATE_NAME',
    'KOLO_TIMEOUT',
    'KOLO_COMMUNICATION',
    'KOLO_UNSUPPORTED',
    'KOLO_INTERNAL',
  ],
} as const;

export interface FakeCall {
  readonly requests: readonly NativeRequest[];
  readonly grouped: boolean;
  readonly sync: boolean;
}

export interface FakeBinding extends NativeBinding {
  readonly calls: FakeCall[];
  /** The number of calls in each enqueueBatch, in order. */
  readonly batches: number[];
  readonly started: NativeEngineConfig[];
  /** Return an error to reject the next matching call with it. */
  failWith?: (requests: readonly NativeRequest[]) => Error | undefined;
  /** Make startEngine reject with this error. */
  startError?: Error;
  shutdowns: number;
  /** startTimeline calls ({path, markCycles}) and stopTimeline calls (null), in order. */
  timeline: ({ path: string; markCycles: boolean } | null)[];
}

export function nativeError(code: string, message: string, failedRank?: number): Error {
  return Object.assign(new Error(message), {
    code,
    ...(failedRank === undefined ? {} : { failedRank }),
  });
}

const op = (id: number) => Object.entries(fakeConstants.reduceOps).find(([, v]) => v === id)?.[0];
const type = (id: number) =>
  Object.entries(fakeConstants.requestTypes).find(([, v]) => v === id)?.[0];

function reduce(x: number, r: NativeRequest, size: number): number {
  const v = x * r.prescale;
  const name = op(r.reduceOp);
  const reduced =
    name === 'sum' || name === 'average' ? v * size : name === 'product' ? v ** size : v;
  return reduced * (name === 'average' ? r.postscale / size : r.postscale);
}

function write(target: HostArray, values: number[], offset = 0): void {
  values.forEach((v, i) => {
    if (target instanceof BigInt64Array) target[offset + i] = BigInt(Math.trunc(v));
    else
      target[offset + i] =
        target instanceof Float32Array || target instanceof Float64Array ? v : Math.trunc(v);
  });
}

function blank(like: HostArray, length: number): HostArray {
  return new (like.constructor as new (n: number) => HostArray)(length);
}

function run(r: NativeRequest, config: NativeEngineConfig): NativeResult {
  const { size, rank } = config;
  const input = r.input ?? new Uint8Array(0);
  const xs = Array.from(input as ArrayLike<number | bigint>, Number);
  const rowLength = r.shape.slice(1).reduce((a, b) => a * b, 1);
  switch (type(r.type)) {
    case 'allreduce':
      if (r.parts !== undefined) {
        // A packed group: each part reduced on its own, as the engine reduces them as one.
        r.parts.inputs.forEach((part, i) => {
          const values = Array.from(part as ArrayLike<number | bigint>, Number);
          write(r.parts!.outputs[i]!, values.map((x) => reduce(x, r, size)));
        });
        return {};
      }
      write(
        r.output!,
        xs.map((x) => reduce(x, r, size)),
      );
      return {};
    case 'broadcast':
      write(r.output!, xs);
      return {};
    case 'allgather': {
      // As the engine: into the request's output when it has the gathered size (no data then),
      // and done (no splits either) where a row has elements.
      const into = r.output !== undefined && r.output.length === xs.length * size;
      const out = into ? r.output! : blank(input, xs.length * size);
      for (let k = 0; k < size; k++) write(out, xs, k * xs.length);
      const splits = Array(size).fill(r.shape[0]);
      if (into && rowLength > 0) return {};
      return into ? { splits } : { data: out.buffer as ArrayBuffer, splits };
    }
    case 'alltoall': {
      const splits = r.splits.length ? r.splits : Array(size).fill((r.shape[0] ?? 0) / size);
      const start = splits.slice(0, rank).reduce((a, b) => a + b, 0) * rowLength;
      const block = xs.slice(start, start + (splits[rank] ?? 0) * rowLength);
      const out = blank(input, block.length * size);
      for (let k = 0; k < size; k++) write(out, block, k * block.length);
      return { data: out.buffer as ArrayBuffer, splits: Array(size).fill(splits[rank]) };
    }
    case 'reducescatter': {
      const rows = r.shape[0] ?? 0;
      const base = Math.floor(rows / size);
      const extra = rows % size;
      const start = (rank * base + Math.min(rank, extra)) * rowLength;
      const count = (base + (rank < extra ? 1 : 0)) * rowLength;
      const out = blank(input, count);
      write(
        out,
        xs.slice(start, start + count).map((x) => reduce(x, r, size)),
      );
      return { data: out.buffer as ArrayBuffer };
    }
    case 'join':
      return { lastJoinedRank: size - 1 };
    default:
      return {};
  }
}

export function createFakeBinding(): FakeBinding {
  const fake: FakeBinding = {
    constants: fakeConstants,
    calls: [],
    batches: [],
    started: [],
    shutdowns: 0,
    timeline: [],
    capabilities: () => ({
      transports: ['fake'],
      dtypes: Object.keys(fakeConstants.dtypes),
      ops: [],
      reduceOps: [],
    }),
    async startEngine(config) {
      fake.started.push(config);
      if (fake.startError) throw fake.startError;
      let down = false;
      const execute = (requests: readonly NativeRequest[], grouped: boolean, sync: boolean) => {
        fake.calls.push({ requests, grouped, sync });
        if (down) throw nativeError('KOLO_SHUT_DOWN', 'Kolo has been shut down.');
        const failure = fake.failWith?.(requests);
        if (failure) throw failure;
        return requests.map((r) => run(r, config));
      };
      const engine: NativeEngine = {
        enqueue: async (requests, grouped) => execute(requests, grouped, false),
        // As the addon: each call settles on its own, all of them after enqueueBatch returned.
        enqueueBatch: (calls, settle) => {
          fake.batches.push(calls.length);
          const outcomes = calls.map((c) => {
            try {
              return execute(c.requests, c.grouped, false);
            } catch (error) {
              return error as Error & { code: string };
            }
          });
          queueMicrotask(() => settle(calls.map((_, i) => i), outcomes));
          return undefined;
        },
        enqueueSync: (requests, grouped) => execute(requests, grouped, true),
        startTimeline: (path, markCycles) => void fake.timeline.push({ path, markCycles }),
        stopTimeline: () => void fake.timeline.push(null),
        tuning: () => ({
          fusionThresholdBytes: config.fusionThresholdBytes,
          cycleTimeMs: config.cycleTimeMs,
          searching: config.autotune?.enabled ?? false,
        }),
        async shutdown() {
          down = true;
          fake.shutdowns += 1;
        },
      };
      return engine;
    },
  };
  return fake;
}
