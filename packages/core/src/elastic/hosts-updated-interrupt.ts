const marker = Symbol.for('kolo.elastic.HostsUpdatedInterrupt');

/**
 * Thrown by `state.commit()` inside `elastic.run` on every rank at the same step when kolorun
 * published a new generation without a failure (host discovery added workers). `elastic.run`
 * catches it and re-rendezvouses; the state was just committed, so nothing is rolled back.
 * Horovod's `HostsUpdatedInterrupt`.
 *
 * @example
 * ```ts
 * try { state.commit(); } catch (e) { if (HostsUpdatedInterrupt.isInstance(e)) throw e; }
 * ```
 */
export class HostsUpdatedInterrupt extends Error {
  private readonly [marker] = true;

  /** @param generation the elastic generation kolorun published. */
  constructor(readonly generation: number) {
    super(`kolorun published elastic generation ${generation}; elastic.run re-rendezvouses with it (catch this only to rethrow it)`);
    this.name = 'HostsUpdatedInterrupt';
  }

  /** True for a HostsUpdatedInterrupt from any copy of `@kolo/core`. */
  static isInstance(error: unknown): error is HostsUpdatedInterrupt {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
