// With KOLO_TEST_SKIP=1, rank 1 never submits 'skipped' (it sleeps, then asks for 'after');
// both ranks report the error they end with. Without it, rank 1 submits 'skipped' late.
import * as kolo from '@kolo/core';

await kolo.init();
const rank = kolo.rank();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const started = Date.now();
try {
  if (rank === 1) {
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.KOLO_TEST_SLEEP_MS ?? 4000)));
    await kolo.allreduce(new Float32Array(1), { name: process.env.KOLO_TEST_SKIP === '1' ? 'after' : 'skipped' });
  } else {
    await kolo.allreduce(new Float32Array(1), { name: 'skipped' });
  }
  report('error', null);
} catch (err) {
  report('error', { code: err.code, name: err.name, message: err.message, afterMs: Date.now() - started });
}
await kolo.shutdown();
