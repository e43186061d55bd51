// Response-cache churn: 10 names whose shapes change every step, under a small cache
// (HOROVOD_CACHE_CAPACITY from the test), so entries are evicted (new parameters) and their
// indices reused by other names every cycle. Rank 1 submits in reverse order.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const names = Array.from({ length: 10 }, (_, i) => `churn.${i}`);
let checksum = 0;
for (let step = 0; step < 30; step += 1) {
  const order = rank === 0 ? names : [...names].reverse();
  const results = await Promise.all(
    order.map((name) => {
      const i = Number(name.split('.')[1]);
      const length = 1 + ((step + i) % 3);
      return kolo.allreduce(new Float64Array(length).fill(rank + i + step), { op: 'sum', name });
    }),
  );
  for (const r of results) checksum += r.reduce((a, b) => a + b, 0);
}
console.log(`RESULT ${JSON.stringify({ rank, key: 'churn', value: checksum })}`);
await kolo.shutdown();
