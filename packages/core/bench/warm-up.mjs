// Steady state before timing: V8 runs new code in its interpreter and optimizes it on a
// background thread, which on a small machine competes with the ranks themselves for the first
// second or so. Benchmarks that time only a few hundred calls would measure that phase (a C
// baseline has none), so each worker first repeats its call for at least `ms` milliseconds.
// Also the per-call median timing the allreduce, allgather, broadcast and phases benches share.
import { performance } from 'node:perf_hooks';
import * as kolo from '@kolo/core';

/**
 * Calls `fn` (awaited) in rounds of `round` until `ms` milliseconds have passed on every rank;
 * ranks agree after each round, so all make the same number of calls.
 *
 * @example
 * await warmUp(() => kolo.allreduce(x, { name: 'w', output: x }), { ms: 1000 });
 */
export async function warmUp(fn, { ms = 1000, round = 500 } = {}) {
  const t0 = performance.now();
  const flag = new Float32Array(1);
  for (;;) {
    for (let i = 0; i < round; i += 1) await fn();
    flag[0] = performance.now() - t0 >= ms ? 1 : 0;
    kolo.allreduceSync(flag, { op: 'min', output: flag, name: 'bench.warmed' });
    if (flag[0] === 1) return;
  }
}

/**
 * Before a size's timed calls: repeats the very call to be timed for `ms` milliseconds (at least
 * a round), in rounds sized to `iters` (the timed count) so a large size does not run for
 * seconds. The warm-up at the start covers the path all sizes share, but each size's call (its
 * closure, its options' shape, an allgather into an output) is new code to V8, which needs some
 * thousand calls to optimize it: a 4 KiB allgather timed right away measured 16-19 µs, after
 * this 11-12 µs. A training loop repeats one call for its whole run; the C/C++ baselines have
 * no JIT, and warm up with 3 calls per size.
 *
 * @example
 * await warmUpSize(() => kolo.allgather(x, options), 2000);
 */
export function warmUpSize(fn, iters, ms = 250) {
  return warmUp(fn, { ms, round: Math.max(1, Math.min(500, Math.ceil(iters / 4))) });
}

/**
 * Warms up `fn` (warmUpSize, for `warmMs`), then calls it `iters` times timed one by one, and
 * returns the median in µs: one preempted call on a shared machine does not move it, as in the
 * C/C++ baselines. With `sync` the timed calls are not awaited (a blocking call's value is no
 * promise, and awaiting it would add a microtask turn to each).
 *
 * @example
 * const us = await medianMicros(2000, () => kolo.broadcast(x, { root: 0, output: x, name: 'b' }));
 */
export async function medianMicros(iters, fn, { sync = false, warmMs = 250 } = {}) {
  await warmUpSize(fn, iters, warmMs);
  const times = [];
  for (let i = 0; i < iters; i += 1) {
    const t0 = process.hrtime.bigint();
    if (sync) fn();
    else await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}
