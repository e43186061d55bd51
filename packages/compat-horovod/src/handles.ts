import { invalidArgument } from '@kolo/core';

declare const resultOf: unique symbol;

/**
 * What an `…Async` call returns, as Horovod's integer handles: pass it to {@link poll} or
 * {@link synchronize}. The type parameter is the result `synchronize` resolves with.
 *
 * @example
 * ```ts
 * const handle: Handle<Float32Array> = hvd.allreduceAsync(grad);
 * ```
 */
export type Handle<T> = number & {
  /** Type-level only: the result `synchronize` resolves with; never set at run time. */
  readonly [resultOf]?: T;
};

interface Pending {
  readonly promise: Promise<unknown>;
  done: boolean;
}

const pending = new Map<number, Pending>();
let nextHandle = 0;

/**
 * Registers a started collective and returns its handle. A failure is kept for `synchronize`
 * (never reported as an unhandled rejection).
 *
 * @example
 * ```ts
 * const handle = toHandle(core.allreduce(grad));
 * ```
 */
export function toHandle<T>(promise: Promise<T>): Handle<T> {
  const entry: Pending = { promise, done: false };
  promise.then(
    () => (entry.done = true),
    () => (entry.done = true),
  );
  const handle = nextHandle++;
  pending.set(handle, entry);
  return handle as Handle<T>;
}

function lookup(handle: unknown, opName: string): Pending {
  const entry = typeof handle === 'number' ? pending.get(handle) : undefined;
  if (entry === undefined) {
    throw invalidArgument({
      what: `a handle from an …Async call that was not yet synchronized (${opName})`,
      name: 'handle',
      value: handle,
      kind: 'range',
    });
  }
  return entry;
}

/**
 * True once the collective behind `handle` has finished (successfully or not); never blocks.
 *
 * @example
 * ```ts
 * while (!hvd.poll(handle)) await new Promise((r) => setTimeout(r, 1));
 * ```
 */
export function poll(handle: Handle<unknown>): boolean {
  return lookup(handle, 'poll').done;
}

/**
 * Resolves with the result of the collective behind `handle` (rejects with its KoloError) and
 * releases the handle. Unlike Horovod, an unknown or already synchronized handle throws.
 *
 * @example
 * ```ts
 * const sum = await hvd.synchronize(hvd.allreduceAsync(x, { op: hvd.Sum }));
 * ```
 */
export function synchronize<T>(handle: Handle<T>): Promise<T> {
  const entry = lookup(handle, 'synchronize');
  pending.delete(handle);
  return entry.promise as Promise<T>;
}

/**
 * Forgets every handle (their collectives still settle), as Horovod's `init`/`shutdown` do.
 *
 * @example
 * ```ts
 * clearHandles();
 * ```
 */
export function clearHandles(): void {
  pending.clear();
}
