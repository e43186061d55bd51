// Bad input against the real engine on every rank: init with a size the job contradicts, a
// second init, zero-length tensors, NaN/Inf passed through, ops after shutdown. Each outcome is
// reported; the process must survive all of them.
import * as kolo from '@kolo/core';

const rank = Number(process.env.KOLO_RANK);
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const outcome = async (f) => {
  try {
    const value = await f();
    return { ok: value };
  } catch (err) {
    return { name: err.name, code: err.code, message: err.message };
  }
};

report('wrongSize', await outcome(() => kolo.init({ size: 3 })));
await kolo.init({ timeoutMs: 30_000 });
report('sameInit', await outcome(() => kolo.init({ timeoutMs: 30_000 }).then(() => kolo.size())));
report('otherInit', await outcome(() => kolo.init({ timeoutMs: 20_000 })));
report('zeroAllreduce', await outcome(async () => Array.from(await kolo.allreduce(new Float32Array(0), { op: 'sum', name: 'z.ar' }))));
report('zeroAllgather', await outcome(async () => (await kolo.allgather(new Float64Array(0), { shape: [0, 3], name: 'z.ag' })).shape));
report('zeroBroadcast', await outcome(async () => Array.from(await kolo.broadcast(new Int32Array(0), { root: 1, name: 'z.bc' }))));
report('zeroAlltoall', await outcome(async () => (await kolo.alltoall(new Int8Array(0), { name: 'z.a2a' })).receivedSplits));
report('zeroReducescatter', await outcome(async () => (await kolo.reducescatter(new Float32Array(0), { op: 'sum', name: 'z.rs' })).shape));
const special = new Float64Array([NaN, Infinity, -Infinity, rank]);
report('nonFinite', await outcome(async () => Array.from(await kolo.allreduce(special, { op: 'sum', name: 'nan' }), String)));
report('badRoot', await outcome(() => kolo.broadcast(new Float32Array(1), { root: 2, name: 'bad.root' })));
report('afterBad', await outcome(async () => Array.from(await kolo.allreduce(new Int32Array([1]), { op: 'sum', name: 'after.bad' }))));
await kolo.shutdown();
report('afterShutdown', await outcome(() => kolo.allreduce(new Float32Array(1), { name: 'late' })));
report('secondShutdown', await outcome(() => kolo.shutdown()));
