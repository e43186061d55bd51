import { allgatherObject, broadcast, MismatchError, rank } from '@kolo/core';

/**
 * The shape and dtype of one tensor, as ranks compare them before a broadcast.
 *
 * @example
 * ```ts
 * const s: TensorSignature = { shape: [784, 128], dtype: 'float32' };
 * ```
 */
export interface TensorSignature {
  readonly shape: readonly number[];
  readonly dtype: string;
}

/** The typed array class each supported dtype travels in. */
const arrayOf = { float32: Float32Array, int32: Int32Array, bool: Uint8Array } as const;
type Wire = keyof typeof arrayOf;

function wireDtype(dtype: string, position: number): Wire {
  if (dtype in arrayOf) return dtype as Wire;
  throw new TypeError(`Expected a float32, int32 or bool tensor for tensor ${position} but received ${dtype}`);
}

function describe(s: TensorSignature): string {
  return `shape [${s.shape.join(', ')}] and dtype ${s.dtype}`;
}

/**
 * Gathers every rank's signatures and throws the same MismatchError on every rank when one
 * differs from `root`'s, so no rank is left waiting in a later collective.
 *
 * @example
 * ```ts
 * await checkSignatures(model.weights.map((w) => ({ shape: w.shape, dtype: w.dtype })), { root: 0, what: 'weight' });
 * ```
 */
export async function checkSignatures(
  mine: readonly TensorSignature[],
  options: { readonly root: number; readonly what: string },
): Promise<void> {
  const all = await allgatherObject(mine);
  const expected = all[options.root] as TensorSignature[];
  all.forEach((theirs, r) => {
    const fail = (text: string): never => {
      throw new MismatchError(`${text}; build the same model on every rank before broadcasting.`, { rank: rank() });
    };
    if (theirs.length !== expected.length) {
      fail(`Expected ${expected.length} ${options.what}s (as on root rank ${options.root}) on rank ${r} but received ${theirs.length}`);
    }
    theirs.forEach((s, i) => {
      const e = expected[i] as TensorSignature;
      if (describe(s) !== describe(e)) {
        fail(`Expected ${describe(e)} (as on root rank ${options.root}) for ${options.what} ${i} on rank ${r} but received ${describe(s)}`);
      }
    });
  });
}

/**
 * Broadcasts many tensors' values from `root` with one collective per dtype (float32, int32,
 * bool), each fused into one buffer. Every rank passes arrays of the same signatures; the
 * result lists root's values in the same order.
 *
 * @example
 * ```ts
 * const values = await broadcastValues([{ dtype: 'float32', data: w.dataSync() }], { root: 0 });
 * ```
 */
export async function broadcastValues(
  tensors: readonly { readonly dtype: string; readonly data: ArrayLike<number> }[],
  options: { readonly root: number },
): Promise<ArrayLike<number>[]> {
  const wires = tensors.map((t, i) => wireDtype(t.dtype, i));
  const out: ArrayLike<number>[] = new Array(tensors.length);
  for (const wire of Object.keys(arrayOf) as Wire[]) {
    const members = tensors.map((t, i) => ({ data: t.data, i })).filter(({ i }) => wires[i] === wire);
    if (members.length === 0) continue;
    const fused = new arrayOf[wire](members.reduce((n, m) => n + m.data.length, 0));
    let offset = 0;
    for (const m of members) {
      fused.set(m.data, offset);
      offset += m.data.length;
    }
    await broadcast(fused, { root: options.root, output: fused });
    offset = 0;
    for (const m of members) out[m.i] = fused.slice(offset, (offset += m.data.length));
  }
  return out;
}
