// One fault-matrix run: a loop of mixed collectives (allreduce, allgather, broadcast, alltoall);
// rank KOLO_TEST_VICTIM sends itself KOLO_TEST_SIGNAL (SIGKILL or SIGSTOP) before step
// KOLO_TEST_STEP. Survivors report the typed error their pending op rejected with.
import * as kolo from '@kolo/core';

const victim = Number(process.env.KOLO_TEST_VICTIM);
const victimStep = Number(process.env.KOLO_TEST_STEP);
const signal = process.env.KOLO_TEST_SIGNAL;
await kolo.init({ timeoutMs: Number(process.env.KOLO_TEST_TIMEOUT_MS) });
const rank = kolo.rank();
const size = kolo.size();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
report('pid', process.pid);
// kolorun's tag starts the name of every shared-memory segment of this job (see shm-sweep.ts).
report('shmTag', process.env.KOLO_SHM_TAG);

const step = (i) => {
  const name = `matrix.${i}`;
  switch (i % 4) {
    case 0:
      // Every other one 600 KB: on shared memory each rank reads its share of the others' inputs
      // from their memory, where the kernel allows it and each rank has a CPU.
      return kolo.allreduce(new Float32Array(i % 8 === 0 ? 150000 : 256).fill(rank), { op: 'sum', name });
    case 1:
      return kolo.allgather(new Int32Array([rank, i]), { name });
    case 2:
      // 160 KB: on shared memory the receivers read the root's memory, where the kernel allows it.
      return kolo.broadcast(new Float64Array(20000).fill(rank), { root: i % size, name });
    default:
      return kolo.alltoall(new Int32Array(size).fill(rank), { name });
  }
};

let failedAt = 0;
try {
  for (let i = 0; i < 1_000_000; i += 1) {
    if (rank === victim && i === victimStep) {
      // stdout is a pipe, written synchronously: the line is out before the signal lands.
      report('signalAt', Date.now());
      process.kill(process.pid, signal);
    }
    failedAt = Date.now();
    await step(i);
  }
  report('error', null);
} catch (err) {
  report('error', {
    name: err.name,
    code: err.code,
    failedRank: err.failedRank,
    isKoloError: kolo.KoloError.isInstance(err),
    message: err.message,
    afterMs: Date.now() - failedAt,
  });
  process.exitCode = 1;
}
