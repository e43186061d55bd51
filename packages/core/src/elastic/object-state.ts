import { broadcastObject } from '../collectives/broadcast-object.js';
import { checkHostUpdates, type ElasticState } from './elastic-state.js';

/**
 * Training state that survives a membership change, as Horovod's `ObjectState`: plain
 * JSON-serializable values with a last good copy. `commit()` saves it, `restore()` rolls back to
 * it after a failed collective, `sync()` gives every rank rank 0's values after a reset.
 *
 * @example
 * ```ts
 * const state = new ObjectState({ step: 0, total: 0 });
 * state.values.step += 1;
 * state.commit();
 * ```
 */
export class ObjectState<T extends object> implements ElasticState {
  private current: T;
  private saved: T;

  constructor(initial: T) {
    this.current = structuredClone(initial);
    this.saved = structuredClone(initial);
  }

  /** The live values; mutate them freely between commits. Replaced by `restore()` and `sync()`. */
  get values(): T {
    return this.current;
  }

  /** The last committed values (a copy the live values never alias). */
  get committed(): T {
    return structuredClone(this.saved);
  }

  /**
   * Deep-copies the live values as the last good state, then checks for host updates (which may
   * throw `HostsUpdatedInterrupt`: let it reach `elastic.run`). Call it once per step (or
   * every few) on every rank alike, after the step's collectives succeeded.
   */
  commit(): void {
    this.saved = structuredClone(this.current);
    this.checkHostUpdates();
  }

  /** Rolls the live values back to the last commit. */
  restore(): void {
    this.current = structuredClone(this.saved);
  }

  /**
   * Broadcasts rank 0's values to every rank and commits them. Needs a running engine; every
   * rank of the current generation must call it.
   */
  async sync(): Promise<void> {
    this.current = await broadcastObject(this.current, { root: 0, name: 'kolo.elastic.state' });
    this.saved = structuredClone(this.current);
  }

  /** Checks for hosts kolorun added (see the free function {@link checkHostUpdates}). */
  checkHostUpdates(): void {
    checkHostUpdates();
  }
}
