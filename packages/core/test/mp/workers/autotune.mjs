// Trains with the autotuner on: every step allreduces `tensors` named float32 tensors of `floats`
// elements each (values exact in float32), checks every sum, and finally reports the tuning both
// before the first step and after the last one.
import * as kolo from '@kolo/core';

const [tensors, floats, steps] = process.argv.slice(2).map(Number);
await kolo.init();
const rank = kolo.rank();
const before = kolo.currentTuning();
let wrong = 0;
for (let step = 0; step < steps; step += 1) {
  const grads = Array.from({ length: tensors }, (_, k) => new Float32Array(floats).fill(rank + k + step));
  await Promise.all(grads.map((g, k) => kolo.allreduce(g, { name: `grad.${k}`, op: 'sum', output: g })));
  grads.forEach((g, k) => {
    const want = 2 * (k + step) + 1;
    if (g[0] !== want || g[floats - 1] !== want) wrong += 1;
  });
}
// One more cycle after rank 0's last sample, so every rank has heard its final choice.
await kolo.barrier();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
report('before', before);
report('after', kolo.currentTuning());
report('wrong', wrong);
await kolo.shutdown();
