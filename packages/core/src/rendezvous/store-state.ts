import { STORE_LIMITS } from './store-protocol.js';
import { StoreProtocolError } from './store-errors.js';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

interface Waiter {
  readonly keys: readonly string[];
  readonly settle: (present: boolean) => void;
}

/** A pending wait: `present` resolves true when every key exists, false on timeout or cancel. */
export interface PendingWait {
  readonly present: Promise<boolean>;
  /** Stops waiting (the client went away); `present` resolves false. */
  cancel(): void;
}

/**
 * The keys and values of one store plus the clients blocked on missing keys. Waiters are woken
 * by the write that completes their key set (push, no polling).
 *
 * @example
 * ```ts
 * const state = new StoreState();
 * const w = state.waitFor(['a'], 1000);
 * state.set('a', Buffer.from('1'));
 * await w.present; // true
 * ```
 */
export class StoreState {
  private readonly values = new Map<string, Buffer>();
  private readonly waiters = new Map<string, Set<Waiter>>();

  get(key: string): Buffer | undefined {
    return this.values.get(key);
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  set(key: string, value: Buffer): void {
    this.values.set(key, value);
    this.wake(key);
  }

  /** Adds `delta` to the decimal integer stored at `key` (missing counts as 0). */
  add(key: string, delta: bigint): bigint {
    const current = this.values.get(key);
    let base = 0n;
    if (current !== undefined) {
      const text = current.toString('utf8');
      if (!/^-?\d{1,19}$/.test(text)) {
        throw new StoreProtocolError(
          `Expected a decimal integer at key "${key}" for ADD but received ${JSON.stringify(
            text.slice(0, 40),
          )}; use ADD only on counter keys`,
        );
      }
      base = BigInt(text);
    }
    const sum = base + delta;
    if (sum < int64Min || sum > int64Max) {
      throw new StoreProtocolError(
        `Expected ADD on key "${key}" to stay within int64 but received ${base} + ${delta}`,
      );
    }
    this.set(key, Buffer.from(sum.toString(), 'utf8'));
    return sum;
  }

  delete(key: string): boolean {
    return this.values.delete(key);
  }

  /** Waits until every key exists, for at most `timeoutMs` (0: do not wait). */
  waitFor(keys: readonly string[], timeoutMs: number): PendingWait {
    if (keys.every((k) => this.values.has(k))) {
      return { present: Promise.resolve(true), cancel: () => {} };
    }
    if (timeoutMs === 0) return { present: Promise.resolve(false), cancel: () => {} };
    let settle!: (present: boolean) => void;
    const present = new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        keys,
        settle: (value) => {
          if (timer !== undefined) clearTimeout(timer);
          this.unregister(waiter);
          resolve(value);
        },
      };
      settle = waiter.settle;
      for (const key of keys) {
        let set = this.waiters.get(key);
        if (set === undefined) this.waiters.set(key, (set = new Set()));
        set.add(waiter);
      }
      if (timeoutMs <= STORE_LIMITS.maxTimerMs)
        timer = setTimeout(() => waiter.settle(false), timeoutMs);
    });
    return { present, cancel: () => settle(false) };
  }

  /** Number of clients blocked on `key` (for tests and diagnostics). */
  waiterCount(key: string): number {
    return this.waiters.get(key)?.size ?? 0;
  }

  /** Releases every waiter with `false` (server shutdown). */
  cancelAll(): void {
    const all = new Set<Waiter>();
    for (const set of this.waiters.values()) for (const w of set) all.add(w);
    for (const w of all) w.settle(false);
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (set === undefined) return;
    for (const waiter of [...set]) {
      if (waiter.keys.every((k) => this.values.has(k))) waiter.settle(true);
    }
  }

  private unregister(waiter: Waiter): void {
    for (const key of waiter.keys) {
      const set = this.waiters.get(key);
      if (set === undefined) continue;
      set.delete(waiter);
      if (set.size === 0) this.waiters.delete(key);
    }
  }
}
