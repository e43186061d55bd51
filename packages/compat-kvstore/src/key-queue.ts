import type { Key } from './keys.js';

/**
 * Orders a store's operations per key, as MXNet's engine does: an operation on some keys starts
 * after every earlier operation on any of them has settled (failed ones included), so a `pull`
 * issued after a `push` sees the pushed value even if nobody awaited the push.
 *
 * @example
 * ```ts
 * const queue = new KeyQueue();
 * void queue.run([3], () => pushKey3());
 * await queue.run([3], () => pullKey3()); // runs after the push
 * ```
 */
export class KeyQueue {
  private readonly tails = new Map<Key, Promise<void>>();

  /**
   * Runs `task` once earlier tasks on `keys` have settled; resolves or rejects as `task` does.
   *
   * @example
   * ```ts
   * await queue.run(['w', 'b'], async () => applyBoth());
   * ```
   */
  run<T>(keys: readonly Key[], task: () => Promise<T>): Promise<T> {
    const earlier = keys.flatMap((key) => this.tails.get(key) ?? []);
    const result = Promise.all(earlier).then(task);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    for (const key of keys) this.tails.set(key, settled);
    void settled.then(() => {
      for (const key of keys) if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }
}
