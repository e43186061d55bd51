import { dispose, tensor, type DataType, type Optimizer } from '@tensorflow/tfjs-core';
import { broadcastObject, expectInteger, invalidArgument, rank, size, UnsupportedError } from '@kolo/core';
import { broadcastValues, type TensorSignature } from './broadcast-values.js';
import { unwrapOptimizer } from './unwrap-optimizer.js';
import type { NamedTensor } from './gradient-fusion.js';

/**
 * True when tfjs can export and import this optimizer's state (`getWeights`/`setWeights`):
 * every built-in optimizer except Adamax.
 *
 * @example
 * ```ts
 * canTransferState(tf.train.adamax(0.01)); // false
 * ```
 */
export function canTransferState(optimizer: Optimizer): boolean {
  return unwrapOptimizer(optimizer).getClassName() !== 'Adamax';
}

/**
 * Makes every rank's optimizer state equal to `root`'s: the iteration count and every slot
 * variable (Adam's moments, Momentum's accumulations, …) by position. Ranks whose optimizer has
 * not created its slots yet (they appear on the first update) receive them. Rejects with an
 * UnsupportedError for Adamax, whose state tfjs cannot export.
 *
 * @example
 * ```ts
 * await broadcastOptimizerState(model.optimizer, 0); // e.g. after rank 0 loaded a checkpoint
 * ```
 */
export async function broadcastOptimizerState(optimizer: Optimizer, root = 0): Promise<void> {
  if (optimizer === null || typeof optimizer !== 'object' || typeof optimizer.getWeights !== 'function') {
    throw invalidArgument({ what: 'a tfjs Optimizer', name: 'optimizer', value: optimizer });
  }
  expectInteger(root, { name: 'root', min: 0, max: size() - 1 });
  const inner = unwrapOptimizer(optimizer);
  if (!canTransferState(inner)) {
    throw new UnsupportedError(
      "broadcastOptimizerState cannot broadcast an Adamax optimizer's state: tfjs's AdamaxOptimizer does not implement getWeights()/setWeights(). Use Adam, or start every rank from a fresh Adamax and broadcast only the model.",
      { rank: rank() },
    );
  }
  const mine = await inner.getWeights();
  const signatures = mine.map((w): TensorSignature & { name: string } => ({ name: w.name, shape: w.tensor.shape, dtype: w.tensor.dtype }));
  const rootSignatures = await broadcastObject(signatures, { root });
  const local = rank() === root ? mine : rootSignatures.map((s) => ({ name: s.name, tensor: zerosOf(s) }));
  const values = await broadcastValues(
    local.map((w) => ({ dtype: w.tensor.dtype, data: w.tensor.dataSync() as ArrayLike<number> })),
    { root },
  );
  if (rank() !== root) dispose(local.map((w) => w.tensor));
  const received: NamedTensor[] = rootSignatures.map((s, i) => ({
    name: s.name,
    tensor: tensor(values[i] as Float32Array | Int32Array, [...s.shape], s.dtype as DataType),
  }));
  // Root imports its own state too: setWeights recomputes derived values (Adam's beta powers,
  // which updates build by repeated multiplication) the same way on every rank, bit for bit.
  await inner.setWeights(received);
  // setWeights copies into new variables: free ours and the state they replaced.
  dispose([...received.map((w) => w.tensor), ...mine.map((w) => w.tensor)]);
}

function zerosOf(s: TensorSignature): NamedTensor['tensor'] {
  return tensor(new (s.dtype === 'int32' ? Int32Array : Float32Array)(s.shape.reduce((a, b) => a * b, 1)), [...s.shape], s.dtype as DataType);
}
