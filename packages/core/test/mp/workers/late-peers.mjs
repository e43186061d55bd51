// Awaited collectives whose peers come late: before each step every rank busy-waits a
// pseudo-random time of its own (0–300 µs, far past the 20 µs caller spin the test sets), and
// every 25th step one rank sleeps 5 ms first, so callers keep publishing a cycle's
// votes and handing the begun cycle to their background thread, whose ending it the peers then
// meet. Steps alternate a 4 KiB allreduce (whose data travels with the votes), a 64 KiB one
// (performed after them) and, every 10th, a blocking allreduce (which ends a begun cycle first
// where one is pending). Every result is checked exactly.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const steps = Number(process.env.KOLO_TEST_STEPS ?? 600);
let seed = 977 + rank * 7919;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const spin = (us) => {
  const until = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < until);
};
const small = new Float32Array(1024);
const large = new Float32Array(16384);
const out = { small: new Float32Array(1024), large: new Float32Array(16384) };
let wrong = 0;
let done = 0;
for (let step = 0; step < steps; step += 1) {
  spin(random() * 300);
  if (step % 25 === 0 && rank === (step / 25) % size) await new Promise((resolve) => setTimeout(resolve, 5));
  // Rank r contributes r + 1 + step, so each element sums to size(size+1)/2 + size * step.
  const want = (size * (size + 1)) / 2 + size * step;
  const kind = step % 2 === 0 ? 'small' : 'large';
  const data = kind === 'small' ? small : large;
  data.fill(rank + 1 + step);
  let result;
  if (step % 10 === 9) {
    result = kolo.allreduceSync(data, { op: 'sum', name: `late.${kind}`, output: out[kind] });
  } else {
    result = await kolo.allreduce(data, { op: 'sum', name: `late.${kind}`, output: out[kind] });
  }
  for (let i = 0; i < result.length; i += 1) if (result[i] !== want) wrong += 1;
  done += 1;
}
console.log(`RESULT ${JSON.stringify({ rank, key: 'late', value: { done, wrong } })}`);
await kolo.shutdown();
