// NCCL conformance on a GPU machine: every op and dtype over `init({ transport: 'nccl' })`,
// checked against exact values on this rank. Not part of `npm test` (no GPU there); run by
// scripts/gpu-check.sh alone (world size 1) or under kolorun with one GPU per worker.
// Prints `PASS <check>` / `FAIL <check>: ...` lines and exits 1 when any check failed.
// `node nccl-conformance.mjs gloo` runs the same checks on Gloo (a dry run of the checks).
import { isDeepStrictEqual } from 'node:util';
import * as kolo from '@kolo/core';
import { DTYPES, expected, inputs, makeArray, toNumbers } from './fixtures.mjs';

let failures = 0;
function check(name, got, want) {
  if (isDeepStrictEqual(got, want)) {
    console.log(`PASS ${name}`);
  } else {
    failures += 1;
    console.log(`FAIL ${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

const transportName = process.argv[2] ?? 'nccl';
await kolo.init({ transport: transportName });
const rank = kolo.rank();
const size = kolo.size();
const tag = `[rank ${rank} of ${size}]`;
check(`${tag} transport`, kolo.transport(), transportName);

for (const dtype of DTYPES) {
  const want = expected(size, dtype, rank);
  for (const op of ['sum', 'min', 'max', 'product']) {
    const out = await kolo.allreduce(makeArray(dtype, inputs.reduce(rank)), { op, name: `${dtype}.${op}` });
    check(`${tag} allreduce.${op}.${dtype}`, toNumbers(dtype, out), want[op]);
  }
  const avg = await kolo.allreduce(makeArray(dtype, inputs.average(rank)), { op: 'average', name: `${dtype}.avg` });
  check(`${tag} allreduce.average.${dtype}`, toNumbers(dtype, avg), want.average);

  const gathered = await kolo.allgather(makeArray(dtype, inputs.gather(rank)), { shape: [rank + 1, 2], name: `${dtype}.g` });
  check(`${tag} allgather.${dtype}`, { data: toNumbers(dtype, gathered.data), shape: gathered.shape }, want.gather);

  const bcast = await kolo.broadcast(makeArray(dtype, [rank, rank, rank]), { root: size - 1, name: `${dtype}.b` });
  check(`${tag} broadcast.${dtype}`, toNumbers(dtype, bcast), want.broadcast);

  const a2a = await kolo.alltoall(makeArray(dtype, inputs.alltoall(rank, size)), { splits: inputs.alltoallSplits(size), name: `${dtype}.a2a` });
  check(`${tag} alltoall.${dtype}`, { data: toNumbers(dtype, a2a.data), receivedSplits: a2a.receivedSplits }, want.alltoall);

  const rs = await kolo.reducescatter(makeArray(dtype, inputs.scatter(rank, size)), {
    op: 'sum',
    shape: [inputs.scatterRows(size), 2],
    name: `${dtype}.rs`,
  });
  check(`${tag} reducescatter.${dtype}`, { data: toNumbers(dtype, rs.data), shape: rs.shape }, want.reducescatter);
}

const sumOfRanks = (size * (size - 1)) / 2;
const scaled = await kolo.allreduce(new Float64Array([rank + 1]), { op: 'sum', prescaleFactor: 0.5, postscaleFactor: 3 });
check(`${tag} allreduce.scaled.float64`, Array.from(scaled), [(sumOfRanks + size) * 0.5 * 3]);

const grouped = await kolo.groupedAllreduce([new Float32Array([rank]), new Float32Array([1, 2]), new Int32Array([rank, 1])], { op: 'sum', name: 'grp' });
check(`${tag} groupedAllreduce`, grouped.map((a) => Array.from(a)), [[sumOfRanks], [size, 2 * size], [sumOfRanks, size]]);

const syncOut = kolo.allreduceSync(new Float32Array([rank, 1]), { op: 'sum', name: 'sync' });
check(`${tag} allreduceSync`, Array.from(syncOut), [sumOfRanks, size]);

// Larger than one 64 MiB staging chunk, so the chunk loop runs more than once.
const big = new Float32Array(20_000_000).map((_, i) => (i % 7) + rank);
const bigOut = await kolo.allreduce(big, { op: 'sum', name: 'big' });
let bigBad = -1;
for (let i = 0; i < bigOut.length && bigBad < 0; i += 1) if (bigOut[i] !== size * (i % 7) + sumOfRanks) bigBad = i;
check(`${tag} allreduce.big.float32 (first wrong index)`, bigBad, -1);

const wide = rank === 0 ? new Uint8Array(70 << 20).map((_, i) => i % 251) : new Uint8Array(70 << 20);
const wideOut = await kolo.broadcast(wide, { root: 0, name: 'wide' });
let wideBad = -1;
for (let i = 0; i < wideOut.length && wideBad < 0; i += 1) if (wideOut[i] !== i % 251) wideBad = i;
check(`${tag} broadcast.big.uint8 (first wrong index)`, wideBad, -1);

// A process set gets its own communicator (and Gloo control context); one of every rank would
// be the global set, so it needs two ranks or more.
if (size > 1) {
  const members = Array.from({ length: size - 1 }, (_, r) => r);
  const set = await kolo.addProcessSet(members);
  if (rank < size - 1) {
    const inSet = await kolo.allreduce(new Int32Array([rank + 1]), { op: 'sum', name: 'ps', processSet: set });
    check(`${tag} processSet.allreduce`, Array.from(inSet), [(members.length * (members.length + 1)) / 2]);
  }
  await kolo.removeProcessSet(set);
}

const empty = await kolo.allreduce(new Float32Array(0), { op: 'sum', name: 'empty' });
check(`${tag} empty`, empty.length, 0);
await kolo.barrier();
check(`${tag} barrier`, true, true);

await kolo.shutdown();
console.log(`${tag} ${failures === 0 ? `all ${transportName} checks passed` : `${failures} ${transportName} check(s) failed`}`);
process.exit(failures === 0 ? 0 : 1);
