// Loops allreduces; the rank named by KOLO_TEST_VICTIM kills itself with SIGKILL mid-loop.
// Survivors report the error their pending op rejected with, and how long it took.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const victim = Number(process.env.KOLO_TEST_VICTIM ?? 2);
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
report('pid', process.pid);
let failedAt = 0;
try {
  for (let i = 0; i < 100000; i += 1) {
    if (rank === victim && i === 20) process.kill(process.pid, 'SIGKILL');
    failedAt = Date.now();
    await kolo.allreduce(new Float32Array(1024).fill(1), { op: 'sum', name: `loop.${i}` });
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
  try {
    await kolo.allreduce(new Float32Array(1), { op: 'sum', name: 'later' });
    report('later', null);
  } catch (later) {
    report('later', { code: later.code, failedRank: later.failedRank });
  }
  process.exitCode = 1;
}
