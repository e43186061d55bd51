// ROUNDS rounds of 100 async allreduces, submitted in a different random order on each rank:
// negotiation must match them by name, not by order.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const rounds = Number(process.env.KOLO_TEST_ROUNDS ?? 1000);
let seed = 12345 + rank * 7919;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
let wrong = 0;
let done = 0;
const started = Date.now();
for (let round = 0; round < rounds; round += 1) {
  const order = Array.from({ length: 100 }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const pending = order.map((t) =>
    kolo.allreduce(new Int32Array([t * (rank + 1), round]), { op: 'sum', name: `t${t}` }).then((out) => {
      // sum over ranks of t * (r + 1) = t * size(size+1)/2; the round number sums to round*size
      if (out[0] !== (t * size * (size + 1)) / 2 || out[1] !== round * size) wrong += 1;
      done += 1;
    }),
  );
  await Promise.all(pending);
}
console.log(`RESULT ${JSON.stringify({ rank, key: 'stress', value: { done, wrong, ms: Date.now() - started } })}`);
await kolo.shutdown();
