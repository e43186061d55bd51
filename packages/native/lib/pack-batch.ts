import type { HostArray, NativeBinding, NativeCall, NativeEngine, NativeRequest, NativeResult, NativeSettle } from './binding.js';

/**
 * What the addon's `enqueuePacked` takes: the calls of one `enqueueBatch` with every number of
 * every request in one Float64Array and every name in one string, so the binding reads a
 * request with a few N-API calls instead of a property lookup per field (N-API's slowest path,
 * which JS's object reads are not). The layout of `numbers`, read by ReadPackedBatch and
 * ReadPackedCall in src/binding/convert.cc:
 *   per call:    requestCount, grouped (1 or 0), how many numbers its requests take, how many
 *                UTF-16 units of `names` its requests' names take
 *   per request: type, dtype, reduceOp, root, prescale, postscale, processSet, name.length,
 *                shape.length, ...shape, splits.length, ...splits
 */
export interface PackedBatch {
  /** Per call its header, then per request its numbers. */
  readonly numbers: Float64Array;
  /** Every request's name, one after another (each one's length is in `numbers`). */
  readonly names: string;
  /** How many requests the batch holds. */
  readonly count: number;
  /** Per request its input, then its output (undefined where absent). */
  readonly arrays: readonly (HostArray | undefined)[];
}

const callHeader = 4;
const scalars = 8;

/**
 * Packs calls for the addon's `enqueuePacked`.
 *
 * @example
 * ```ts
 * addon.enqueuePacked(packBatch([{ requests, grouped: false }]), settle);
 * ```
 */
export function packBatch(calls: readonly NativeCall[]): PackedBatch {
  let length = 0;
  for (const call of calls) {
    length += callHeader;
    for (const r of call.requests) length += scalars + 2 + r.shape.length + r.splits.length;
  }
  const numbers = new Float64Array(length);
  let names = '';
  const arrays: (HostArray | undefined)[] = [];
  let at = 0;
  for (const call of calls) {
    const header = at;
    const namesBefore = names.length;
    numbers[at] = call.requests.length;
    numbers[at + 1] = call.grouped ? 1 : 0;
    at += callHeader;
    for (const r of call.requests) {
      if (typeof r.name !== 'string') throw new TypeError(`Expected a string request name but received ${typeof r.name}`);
      numbers[at] = r.type;
      numbers[at + 1] = r.dtype;
      numbers[at + 2] = r.reduceOp;
      numbers[at + 3] = r.root;
      numbers[at + 4] = r.prescale;
      numbers[at + 5] = r.postscale;
      numbers[at + 6] = r.processSet ?? 0;
      numbers[at + 7] = r.name.length;
      at += scalars;
      numbers[at++] = r.shape.length;
      for (const d of r.shape) numbers[at++] = d;
      numbers[at++] = r.splits.length;
      for (const s of r.splits) numbers[at++] = s;
      names += r.name;
      arrays.push(r.input, r.output);
    }
    numbers[header + 2] = at - header - callHeader;
    numbers[header + 3] = names.length - namesBefore;
  }
  return { numbers, names, count: arrays.length / 2, arrays };
}

/** The engine object the addon makes: the contract's methods but `enqueueBatch` and `enqueueSync`. */
type AddonEngine = Omit<NativeEngine, 'enqueueBatch' | 'enqueueSync'> & {
  enqueuePacked(batch: PackedBatch, settle: NativeSettle): void;
  enqueueSyncPacked(batch: PackedBatch): NativeResult[];
};

function enqueueBatch(this: AddonEngine, calls: readonly NativeCall[], settle: NativeSettle): void {
  this.enqueuePacked(packBatch(calls), settle);
}

function enqueueSync(this: AddonEngine, requests: readonly NativeRequest[], grouped: boolean): NativeResult[] {
  return this.enqueueSyncPacked(packBatch([{ requests, grouped }]));
}

/**
 * Completes the addon to the NativeBinding contract: its engines get `enqueueBatch` and
 * `enqueueSync`, which pack the calls and hand them to `enqueuePacked` and `enqueueSyncPacked`
 * (defined once, on the engines' shared prototype).
 *
 * @example
 * ```ts
 * const binding = withEnqueueBatch(require('./build/Release/kolo_native.node'));
 * ```
 */
export function withEnqueueBatch(addon: NativeBinding): NativeBinding {
  const startEngine = addon.startEngine.bind(addon);
  return {
    constants: addon.constants,
    capabilities: addon.capabilities.bind(addon),
    startEngine: async (config) => {
      const engine = await startEngine(config);
      const prototype = Object.getPrototypeOf(engine) as object;
      if (!Object.hasOwn(prototype, 'enqueueBatch')) {
        Object.defineProperty(prototype, 'enqueueBatch', { value: enqueueBatch });
        Object.defineProperty(prototype, 'enqueueSync', { value: enqueueSync });
      }
      return engine;
    },
  };
}
