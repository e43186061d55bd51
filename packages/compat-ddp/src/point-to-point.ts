import { alltoall, expectInteger, invalidArgument, UnsupportedError, type HostArray } from '@kolo/core';
import { requireWorld, resolveGroup, type WorldState } from './group-state.js';
import { pairSet } from './pair-sets.js';
import type { ProcessGroup } from './process-group.js';
import { groupRankOf } from './src-dst.js';
import { allocate, viewTensor, type Tensor } from './tensor-io.js';
import { valueError } from './torch-errors.js';
import { Work } from './work.js';

/**
 * Options of {@link send} and {@link recv}.
 *
 * @example
 * ```ts
 * await dist.send(t, { dst: 1, tag: 7 } satisfies PointToPointOptions);
 * ```
 */
export interface PointToPointOptions {
  /** Checks that the peer belongs to this group; the peer is a global rank either way. */
  readonly group?: ProcessGroup;
  /** Matches a send to the recv with the same tag (default 0). */
  readonly tag?: number;
}

/** One message: the peer's pair set and the name both ends give it. */
function message(state: WorldState, spec: { from: number; to: number; tag: unknown; opName: string }) {
  const tag = expectInteger(spec.tag ?? 0, { name: 'tag', min: 0 });
  const key = `${spec.from}>${spec.to}#${tag}`;
  const n = state.p2pCounters.get(key) ?? 0;
  state.p2pCounters.set(key, n + 1);
  const processSet = pairSet(state, { a: spec.from, b: spec.to, opName: spec.opName });
  return { processSet, name: `torch.p2p.${spec.from}to${spec.to}.t${tag}.${n}`, toIndex: spec.to > spec.from ? 1 : 0 };
}

function peer(options: PointToPointOptions & { dst?: number; src?: number }, key: 'dst' | 'src', opName: string): number {
  const state = requireWorld();
  const group = resolveGroup(options.group);
  const value = options[key];
  if (value === undefined && key === 'src') {
    throw new UnsupportedError(`${opName} from any source (src undefined) is not supported: Kolo matches messages by name, which needs the sender. Pass src.`, { opName });
  }
  groupRankOf(group, value, key);
  if (value === state.world.rank()) {
    throw valueError(key === 'dst'
      ? 'Invalid destination rank: destination rank should not be the same as the rank of the current process.'
      : 'Invalid source rank: source rank should not be the same as the rank of the current process.');
  }
  return value as number;
}

/**
 * torch's `isend`: starts sending `tensor` to global rank `dst` and returns a Work. Messages
 * between two ranks arrive in the order sent, per tag. It runs on the two ranks' own process
 * set, so other ranks need not take part.
 *
 * @example
 * ```ts
 * const work = dist.isend(new Float32Array([1, 2]), { dst: 1 });
 * await work.wait();
 * ```
 */
export function isend(tensor: Tensor, options: PointToPointOptions & { readonly dst: number }): Work<void> {
  const view = viewTensor(tensor, 'tensor');
  const dst = peer(options, 'dst', 'send');
  const state = requireWorld();
  const m = message(state, { from: state.world.rank(), to: dst, tag: options.tag, opName: 'send' });
  const splits = m.toIndex === 1 ? [0, view.data.length] : [view.data.length, 0];
  const running: Promise<void> = alltoall(view.data, { splits, name: m.name, ...(m.processSet && { processSet: m.processSet }) }).then(() => undefined);
  return new Work(running, () => [tensor]);
}

/**
 * torch's `send`: {@link isend}, resolving when the message was delivered.
 *
 * @example
 * ```ts
 * if (dist.getRank() === 0) await dist.send(weights, { dst: 1 });
 * ```
 */
export async function send(tensor: Tensor, options: PointToPointOptions & { readonly dst: number }): Promise<void> {
  await isend(tensor, options).wait();
}

/**
 * torch's `irecv`: starts receiving a message from global rank `src` into `tensor`, a TypedArray
 * of the sent length (tfjs tensors are immutable, so they cannot receive). `src` is required:
 * receiving from any source is not supported.
 *
 * @example
 * ```ts
 * const buf = new Float32Array(2);
 * await dist.irecv(buf, { src: 0 }).wait();
 * ```
 */
export function irecv(tensor: HostArray, options: PointToPointOptions & { readonly src: number }): Work<number> {
  const view = viewTensor(tensor, 'tensor');
  if (view.tfDtype !== undefined) {
    throw invalidArgument({ what: 'a TypedArray to receive into (tfjs tensors are immutable)', name: 'tensor', value: 'a tf.Tensor' });
  }
  const src = peer(options, 'src', 'recv');
  const state = requireWorld();
  const m = message(state, { from: src, to: state.world.rank(), tag: options.tag, opName: 'recv' });
  const receive = { splits: [0, 0], name: m.name, ...(m.processSet && { processSet: m.processSet }) };
  const running = alltoall(allocate(view.dtype, 0), receive).then((got) => {
    if (got.data.length !== tensor.length) {
      throw invalidArgument({ what: `a message of ${tensor.length} elements (the length of tensor)`, name: `the message from rank ${src}`, value: `${got.data.length} elements`, kind: 'range' });
    }
    (tensor as Int32Array).set(got.data as Int32Array);
    return src;
  });
  return new Work(running, () => [tensor], src);
}

/**
 * torch's `recv`: {@link irecv}, resolving with the sender's rank once the data is in `tensor`.
 *
 * @example
 * ```ts
 * const from = await dist.recv(buf, { src: 0 }); // 0
 * ```
 */
export async function recv(tensor: HostArray, options: PointToPointOptions & { readonly src: number }): Promise<number> {
  const work = irecv(tensor, options);
  await work.wait();
  return work.sourceRank();
}
