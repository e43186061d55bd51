// A training loop's turns, repeated step after step, which the request queue hands to the engine
// again from the batches it kept (RequestQueue, EngineWrap::EnqueueRepeat): new values in the
// same arrays every step must come back reduced exactly. Each step makes three turns: 20 named
// gradients plus a grouped pair (rank 1 submits them in reverse order), one named metric, and an
// unnamed allreduce (never kept); and a named blocking allreduce (EnqueueSyncRepeat); then a
// broadcast from rank 1 in place, an allgather with a shape and no output (a new result array
// each step) and one into an output, each a turn of its own. At step 25 both ranks detach gradient 7's input between the
// call and the end of the turn: that turn goes to the engine as an ordinary batch, which refuses
// the call; from then on the gradient is a new array.
import * as kolo from '@kolo/core';
// The engine object the queue hands turns to (the same module instance as @kolo/core's).
import { requireRunning } from '../../../dist/runtime/runtime-state.js';

await kolo.init();
const rank = kolo.rank();
const engine = requireRunning().engine;
let repeats = 0;
let syncRepeats = 0;
const enqueueRepeat = engine.enqueueRepeat;
const enqueueSyncRepeat = engine.enqueueSyncRepeat;
// The addon's methods are read-only on its prototype: an own property of this engine shadows it.
Object.defineProperty(engine, 'enqueueRepeat', {
  value(token, settle) {
    const queued = enqueueRepeat.call(this, token, settle);
    if (queued) repeats += 1;
    return queued;
  },
});
Object.defineProperty(engine, 'enqueueSyncRepeat', {
  value(token) {
    const results = enqueueSyncRepeat.call(this, token);
    if (results !== undefined) syncRepeats += 1;
    return results;
  },
});

const steps = 40;
const n = 20;
const inputs = Array.from({ length: n }, (_, i) => new Float32Array(16 + i));
const outputs = inputs.map((x) => new Float32Array(x.length));
const pair = [new Float64Array(3), new Int32Array(5)];
const metric = new Float32Array(1);
const blocking = new Float64Array(1);
const blockingOut = new Float64Array(1);
const wrong = [];
let refused = '';
const bcast = new Float32Array(5);
const rows = new Int32Array(2);
const gathered = new Int32Array(4);
let lastRows = null;

for (let step = 0; step < steps; step += 1) {
  // Gradient i, element k: rank + step + i + k on each rank, summed over 2 ranks.
  inputs.forEach((x, i) => x.forEach((_, k) => (x[k] = rank + step + i + k)));
  pair[0].fill(rank + step);
  pair[1].fill(10 * rank + step);
  metric[0] = rank + 2 * step;
  const order = rank === 0 ? [...inputs.keys()] : [...inputs.keys()].reverse();
  const grads = order.map((i) => kolo.allreduce(inputs[i], { name: `grad.${i}`, op: 'sum', output: outputs[i] }));
  const grouped = kolo.groupedAllreduce(pair, { name: 'pair', op: 'sum', outputs: pair });
  if (step === 25) {
    const buffer = inputs[7].buffer;
    structuredClone(buffer, { transfer: [buffer] });
  }
  const settled = await Promise.allSettled([...grads, grouped]);
  settled.forEach((s, j) => {
    if (s.status === 'fulfilled') return;
    if (step === 25 && order[j] === 7) refused = String(s.reason?.message);
    else wrong.push(`step ${step}: call ${j} failed: ${s.reason}`);
  });
  if (step === 25) {
    inputs[7] = new Float32Array(16 + 7);
    inputs[7].fill(0);
  }
  for (let i = 0; i < n; i += 1) {
    if (step === 25 && i === 7) continue;
    outputs[i].forEach((v, k) => {
      const want = 1 + 2 * (step + i + k);
      if (v !== want) wrong.push(`step ${step}: grad.${i}[${k}] = ${v}, want ${want}`);
    });
  }
  if (pair[0].some((v) => v !== 1 + 2 * step) || pair[1].some((v) => v !== 10 + 2 * step)) {
    wrong.push(`step ${step}: pair = ${[...pair[0]]} / ${[...pair[1]]}`);
  }
  // The pair now holds its sums: reset below, next step.
  const mean = await kolo.allreduce(metric, { name: 'metric', op: 'average', output: metric });
  if (mean[0] !== 0.5 + 2 * step) wrong.push(`step ${step}: metric = ${mean[0]}`);
  blocking[0] = rank + step;
  kolo.allreduceSync(blocking, { name: 'blocking', op: 'max', output: blockingOut });
  if (blockingOut[0] !== 1 + step) wrong.push(`step ${step}: blocking = ${blockingOut[0]}`);
  const [count] = await kolo.allreduce(new Int32Array([1]), { op: 'sum' });
  if (count !== 2) wrong.push(`step ${step}: count = ${count}`);
  bcast.fill(rank === 1 ? 1000 + step : -1);
  await kolo.broadcast(bcast, { root: 1, name: 'bcast', output: bcast });
  if (bcast.some((v) => v !== 1000 + step)) wrong.push(`step ${step}: bcast = ${[...bcast]}`);
  rows[0] = 100 * rank + step;
  rows[1] = -rank;
  const want = [step, 0, 100 + step, -1];
  const got = await kolo.allgather(rows, { name: 'rows', shape: [1, 2] });
  if (got.data === lastRows) wrong.push(`step ${step}: the same result array as the last step's`);
  lastRows = got.data;
  if (String([...got.data]) !== String(want) || String(got.shape) !== '2,2') wrong.push(`step ${step}: rows = ${[...got.data]} ${got.shape}`);
  rows[1] = 7 * rank;
  const into = await kolo.allgather(rows, { name: 'rows.into', output: gathered });
  if (into.data !== gathered || String([...gathered]) !== String([step, 0, 100 + step, 7])) wrong.push(`step ${step}: into = ${[...gathered]}`);
}
console.log(`RESULT ${JSON.stringify({ rank, key: 'repeated', value: { wrong: wrong.slice(0, 5), refused, repeats, syncRepeats } })}`);
await kolo.shutdown();
