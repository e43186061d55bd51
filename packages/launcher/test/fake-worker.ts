// A RunningWorker with no process behind it, for unit tests of the launcher's bookkeeping.
import type { RunningWorker } from '../src/spawn-workers.js';

/**
 * A worker of `rank` on `host` that never exits and has nothing to signal.
 *
 * @example
 * const workers = [0, 1].map((rank) => fakeWorker(rank));
 */
export function fakeWorker(rank: number, host = 'localhost'): RunningWorker {
  return {
    rank,
    host,
    pid: undefined,
    exited: new Promise(() => {}),
    drained: Promise.resolve(),
    stderrTail: () => [],
    signalGroup: () => true,
  };
}
