// Steady state before timing: V8 runs new code in its interpreter and optimizes it on a
// background thread, which on a small machine competes with the ranks themselves for the first
// second or so. Benchmarks that time only a few hundred calls would measure that phase (a C
// baseline has none), so each worker first repeats its call for at least `ms` milliseconds.
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
