// Every torch.distributed collective x ReduceOp x dtype on this rank; prints `RESULT <json>`
// lines that the test compares with exact values derived from inputs.mjs.
import * as dist from '@kolo/compat-ddp';
import { DTYPES, OPS, inputs, makeArray, toNumbers } from './inputs.mjs';

await dist.initProcessGroup({ backend: 'gloo' });
const rank = dist.getRank();
const size = dist.getWorldSize();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const attempt = async (key, fn) => {
  try {
    report(key, await fn());
  } catch (error) {
    report(key, { error: error.message, name: error.name });
  }
};
const others = Array.from({ length: size }, (_, j) => j);

for (const dtype of DTYPES) {
  const arr = (values) => makeArray(dtype, values);
  const nums = (a) => toNumbers(dtype, a);
  for (const op of OPS) {
    const values = inputs.reduce(dtype, rank, size)(op);
    await attempt(`all_reduce.${op}.${dtype}`, async () => {
      const t = arr(values);
      const out = await dist.allReduce(t, { op });
      return { inPlace: out === t, data: nums(t) };
    });
    await attempt(`reduce.${op}.${dtype}`, async () => nums(await dist.reduce(arr(values), { op, dst: size - 1 })));
    await attempt(`reduce_scatter.${op}.${dtype}`, async () => {
      const out = arr([0, 0]);
      await dist.reduceScatter(out, others.map((j) => arr(inputs.scatterChunk(rank, j))), { op });
      return nums(out);
    });
    await attempt(`reduce_scatter_tensor.${op}.${dtype}`, async () => {
      const out = arr([0, 0]);
      await dist.reduceScatterTensor(out, arr(others.flatMap((j) => inputs.scatterChunk(rank, j))), { op });
      return nums(out);
    });
  }
  report(`broadcast.${dtype}`, nums(await dist.broadcast(arr(inputs.broadcast(rank)), { src: size - 1 })));
  const list = others.map((j) => arr(inputs.gather(j).map(() => 0)));
  report(`all_gather.${dtype}`, (await dist.allGather(list, arr(inputs.gather(rank)))).map(nums));
  report(`all_gather_into_tensor.${dtype}`, nums(await dist.allGatherIntoTensor(arr(others.flatMap(() => [0, 0])), arr(inputs.gatherInto(rank)))));
  const dst = 1 % size;
  const gathered = await dist.gather(arr(inputs.gatherTo(rank)), { dst, gatherList: rank === dst ? others.map(() => arr([0, 0])) : undefined });
  report(`gather.${dtype}`, gathered === undefined ? null : gathered.map(nums));
  const scattered = await dist.scatter(arr([0, 0]), { src: 0, scatterList: rank === 0 ? others.map((j) => arr(inputs.scatterPart(j))) : undefined });
  report(`scatter.${dtype}`, nums(scattered));
  const outs = others.map(() => arr(Array.from({ length: rank + 1 }, () => 0)));
  report(`all_to_all.${dtype}`, (await dist.allToAll(outs, others.map((j) => arr(inputs.toAll(rank, j))))).map(nums));
  const even = arr(Array.from({ length: 2 * size }, (_, k) => inputs.single(rank, k)));
  report(`all_to_all_single.${dtype}`, nums(await dist.allToAllSingle(arr(Array.from({ length: 2 * size }, () => 0)), even)));
  const total = (size * (size + 1)) / 2;
  const uneven = arr(Array.from({ length: total }, (_, k) => inputs.single(rank, k)));
  const splits = others.map((j) => j + 1);
  const got = arr(Array.from({ length: size * (rank + 1) }, () => 0));
  await dist.allToAllSingle(got, uneven, { inputSplitSizes: splits, outputSplitSizes: others.map(() => rank + 1) });
  report(`all_to_all_single.uneven.${dtype}`, nums(got));
  const into = arr([0, 0]);
  const sent = dist.isend(arr(inputs.ring(rank)), { dst: (rank + 1) % size });
  const from = await dist.recv(into, { src: (rank + size - 1) % size });
  await sent.wait();
  report(`send_recv.${dtype}`, { from, data: nums(into) });
}

await dist.barrier();
report('barrier', true);
const objects = rank === 0 ? [new Map([['lr', 0.1]]), 42n, { nested: [1, 'two'] }] : [null, null, null];
await dist.broadcastObjectList(objects, { src: 0 });
report('broadcast_object_list', [Object.fromEntries(objects[0]), String(objects[1]), objects[2]]);
const everyone = await dist.allGatherObject(new Array(size).fill(null), { rank, tag: `r${rank}` });
report('all_gather_object', everyone);
await dist.monitoredBarrier({ timeoutMs: 10_000 });
report('monitored_barrier', true);
await dist.destroyProcessGroup();
