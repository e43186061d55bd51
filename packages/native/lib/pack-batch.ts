import type { HostArray, NativeBinding, NativeCall, NativeEngine, NativeParts, NativeRequest, NativeResult, NativeSettle } from './binding.js';
import { oneResult } from './results.js';

/**
 * What the addon's `enqueuePacked` takes: the calls of one `enqueueBatch` with every number of
 * every request in one Float64Array and every name in one string, so the binding reads a
 * request with a few N-API calls instead of a property lookup per field (N-API's slowest path,
 * which JS's object reads are not). The layout of `numbers`, read by ReadPackedBatch and
 * ReadPackedCall in src/binding/convert.cc:
 *   per call:    requestCount, grouped (1 or 0), how many numbers its requests take, how many
 *                UTF-16 units of `names` its requests' names take, how many entries of
 *                `arrays` its requests take
 *   per request: type, dtype, reduceOp, root, prescale, postscale, processSet, name.length,
 *                shape.length, ...shape, splits.length, ...splits, P, ...parts, where `parts`
 *                lists each part's rank then its dimensions (P = 0 without parts)
 * `arrays` holds per request its input and output, or with parts each part's input and output.
 */
export interface PackedBatch {
  /** Per call its header, then per request its numbers. */
  readonly numbers: Float64Array;
  /** Every request's name, one after another (each one's length is in `numbers`). */
  readonly names: string;
  /** Per request its input, then its output (undefined where absent); per part for parts. */
  readonly arrays: readonly (HostArray | undefined)[];
}

const callHeader = 5;
const scalars = 8;

/**
 * Every batch's numbers are written here (grown when a batch needs more) and handed over as a
 * view of the part it uses: a new Float64Array costs 1–2 µs (a new backing store, which V8 then
 * tracks and sweeps), a view of this one about 0.2 µs, and a small call costs about 10 µs in all.
 * The addon reads a batch's numbers before any JS runs again, so the next batch may reuse them;
 * a batch kept past the next packBatch call sees that call's numbers.
 */
let scratch = new Float64Array(256);
/**
 * Views of `scratch` by length, made once each: even a view costs about 0.2 µs (a new object
 * that V8 then tracks), and a training loop packs batches of the same few lengths every step.
 */
let views: (Float64Array | undefined)[] = [];
const maxCachedView = 4096;

/** The first `length` numbers of `scratch`. */
function scratchView(length: number): Float64Array {
  if (length > maxCachedView) return scratch.subarray(0, length);
  return (views[length] ??= scratch.subarray(0, length));
}

/** How many numbers a packed group's shapes take: per part its rank, then its dimensions. */
function partNumbers(parts: NativeParts | undefined): number {
  if (parts === undefined) return 0;
  const { shapes } = parts;
  let n = 0;
  for (let i = 0; i < shapes.length; i++) n += 1 + (shapes[i] as readonly number[]).length;
  return n;
}

/**
 * Packs calls for the addon's `enqueuePacked`.
 *
 * @example
 * ```ts
 * const b = packBatch([{ requests, grouped: false }]);
 * addon.enqueuePacked(b.numbers, b.names, b.arrays, settle, ...b.arrays);
 * ```
 */
export function packBatch(calls: readonly NativeCall[]): PackedBatch {
  // Indexed loops throughout: for-of over arrays of several element kinds (a shape is a packed
  // array of small integers, the shared empty default a frozen one) goes through the array
  // iterator's builtin for every element instead of compiling to a plain loop.
  let length = 0;
  for (let c = 0; c < calls.length; c++) {
    const requests = (calls[c] as NativeCall).requests;
    length += callHeader;
    for (let q = 0; q < requests.length; q++) {
      const r = requests[q] as NativeRequest;
      length += scalars + 3 + r.shape.length + r.splits.length + partNumbers(r.parts);
    }
  }
  if (length > scratch.length) {
    scratch = new Float64Array(Math.max(length, 2 * scratch.length));
    views = [];
  }
  const numbers = scratchView(length);
  let names = '';
  const arrays: (HostArray | undefined)[] = [];
  let at = 0;
  for (let c = 0; c < calls.length; c++) {
    const call = calls[c] as NativeCall;
    const requests = call.requests;
    const header = at;
    const namesBefore = names.length;
    const arraysBefore = arrays.length;
    numbers[at] = requests.length;
    numbers[at + 1] = call.grouped ? 1 : 0;
    at += callHeader;
    for (let q = 0; q < requests.length; q++) {
      const r = requests[q] as NativeRequest;
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
      const { shape, splits } = r;
      numbers[at++] = shape.length;
      for (let d = 0; d < shape.length; d++) numbers[at++] = shape[d] as number;
      numbers[at++] = splits.length;
      for (let d = 0; d < splits.length; d++) numbers[at++] = splits[d] as number;
      const parts = r.parts;
      numbers[at++] = partNumbers(parts);
      names += r.name;
      if (parts === undefined) {
        arrays.push(r.input, r.output);
        continue;
      }
      const { shapes, inputs, outputs } = parts;
      for (let i = 0; i < shapes.length; i++) {
        const part = shapes[i] as readonly number[];
        numbers[at++] = part.length;
        for (let d = 0; d < part.length; d++) numbers[at++] = part[d] as number;
        arrays.push(inputs[i], outputs[i]);
      }
    }
    numbers[header + 2] = at - header - callHeader;
    numbers[header + 3] = names.length - namesBefore;
    numbers[header + 4] = arrays.length - arraysBefore;
  }
  return { numbers, names, arrays };
}

/** A packed batch as the addon takes it: its fields as arguments, in this order. */
type BatchArguments = [numbers: Float64Array, names: string, arrays: readonly (HostArray | undefined)[]];

/**
 * The engine object the addon makes: the contract's methods but `enqueueBatch` and
 * `enqueueSync`. Both packed methods take the batch's fields as arguments (the addon reads
 * arguments with one N-API call, where each property of an object costs one), then the batch's
 * arrays as trailing arguments, for the same reason (it falls back to `arrays` when they do not
 * match them one for one).
 */
type AddonEngine = Omit<NativeEngine, 'enqueueBatch' | 'enqueueSync'> & {
  enqueuePacked(...args: [...BatchArguments, settle: NativeSettle, ...arrays: (HostArray | undefined)[]]): number | undefined;
  keepNextBatch(): number;
  enqueueSyncPacked(...args: [...BatchArguments, ...arrays: (HostArray | undefined)[]]): NativeResult[];
  useResultMaker?(maker: typeof oneResult): void;
};

/** The most arrays passed as arguments; a larger batch's are read from `batch.arrays`. */
const maxArrayArguments = 8192;

/** The batch's arrays to pass as trailing arguments: all of them, or none past the limit. */
function arrayArguments(arrays: PackedBatch['arrays']): readonly (HostArray | undefined)[] {
  return arrays.length > maxArrayArguments ? [] : arrays;
}

// A call of one request passes its two arrays by name: a spread argument list costs about 100 ns
// more (V8's CallWithSpread), a few percent of a small blocking allreduce. And its arguments stay
// at six: node-addon-api reads up to six into the stack, more into a new array on the heap after
// asking N-API for them a second time.

function enqueueBatch(this: AddonEngine, calls: readonly NativeCall[], settle: NativeSettle, keep?: boolean): number | undefined {
  const { numbers, names, arrays } = packBatch(calls);
  if (keep === true) this.keepNextBatch();
  if (arrays.length === 2) return this.enqueuePacked(numbers, names, arrays, settle, arrays[0], arrays[1]);
  return this.enqueuePacked(numbers, names, arrays, settle, ...arrayArguments(arrays));
}

function enqueueSync(this: AddonEngine, requests: readonly NativeRequest[], grouped: boolean): NativeResult[] {
  const { numbers, names, arrays } = packBatch([{ requests, grouped }]);
  if (arrays.length === 2) return this.enqueueSyncPacked(numbers, names, arrays, arrays[0], arrays[1]);
  return this.enqueueSyncPacked(numbers, names, arrays, ...arrayArguments(arrays));
}

/**
 * Completes the addon to the NativeBinding contract: its engines get `enqueueBatch` and
 * `enqueueSync`, which pack the calls and hand them to `enqueuePacked` and `enqueueSyncPacked`
 * (defined once, on the engines' shared prototype), and each engine builds results with
 * {@link oneResult}.
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
      (engine as unknown as AddonEngine).useResultMaker?.(oneResult);
      const prototype = Object.getPrototypeOf(engine) as object;
      if (!Object.hasOwn(prototype, 'enqueueBatch')) {
        Object.defineProperty(prototype, 'enqueueBatch', { value: enqueueBatch });
        Object.defineProperty(prototype, 'enqueueSync', { value: enqueueSync });
      }
      return engine;
    },
  };
}
