import { allreduceSync } from '../collectives/allreduce.js';
import { publishedAfterWatched } from './host-updates.js';
import { HostsUpdatedInterrupt } from './hosts-updated-interrupt.js';

/**
 * What `elastic.run` needs from a training state (Horovod's `State`): save a last good copy,
 * roll back to it, make every rank equal to rank 0, and notice added hosts at a commit.
 * {@link ObjectState} is one; framework adapters provide others (e.g. a tfjs model's weights).
 *
 * @example
 * ```ts
 * class MyState implements ElasticState {
 *   commit() { this.saved = copy(this.live); checkHostUpdates(); }
 *   restore() { this.live = copy(this.saved); }
 *   async sync() { this.live = await broadcastObject(this.live, { root: 0 }); this.saved = copy(this.live); }
 * }
 * ```
 */
export interface ElasticState {
  /** Saves the live state as the last good one, then calls {@link checkHostUpdates}. */
  commit(): void;
  /** Rolls the live state back to the last commit. */
  restore(): void;
  /** Gives every rank rank 0's state and commits it; a collective every rank must call. */
  sync(): Promise<void>;
}

/**
 * Inside `elastic.run`: asks every rank (one blocking allreduce) whether any has seen kolorun
 * publish a new generation without a failure (host discovery added workers), and if so throws
 * {@link HostsUpdatedInterrupt} on every rank at this same commit. Outside it, does nothing.
 * Call it at the end of a state's `commit()`, on every rank alike.
 *
 * @example
 * ```ts
 * commit() { this.saved = structuredClone(this.live); checkHostUpdates(); }
 * ```
 */
export function checkHostUpdates(): void {
  const published = publishedAfterWatched();
  if (published === undefined) return;
  const [newest] = allreduceSync(new Int32Array([published]), { op: 'max', name: 'kolo.elastic.hostsUpdated' });
  if ((newest as number) > 0) throw new HostsUpdatedInterrupt(newest as number);
}
