// Elastic job with host discovery: each step averages a per-rank gradient into shared weights,
// sums 1 per rank into `sums` and commits. Worker KOLO_TEST_VICTIM sends itself
// KOLO_TEST_VICTIM_SIGNAL (default SIGKILL) at step KOLO_TEST_VICTIM_STEP (none when unset); worker 0 writes KOLO_TEST_REHOST_TO (host:slots) into
// the discovery file at step KOLO_TEST_REHOST_STEP (none when unset). Training ends once it is
// past step KOLO_TEST_STEPS and ran 5 steps with KOLO_TEST_FINAL_SIZE workers (or at step 400).
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import * as kolo from '@kolo/core';

const env = process.env;
const steps = Number(env.KOLO_TEST_STEPS ?? 40);
const finalSize = Number(env.KOLO_TEST_FINAL_SIZE);
const workerId = env.KOLO_WORKER_ID;
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank: Number(workerId), key, value })}`);

const timeoutMs = Number(env.KOLO_TEST_TIMEOUT_MS ?? 20_000);
await kolo.init({ timeoutMs });
const state = new kolo.elastic.ObjectState({ step: 0, sums: [], weights: [1, 2, 3, 4] });
let attempts = 0;
await kolo.elastic.run(async (s) => {
  attempts += 1;
  report(`start.${attempts}`, { step: s.values.step, size: kolo.size(), generation: kolo.elastic.generation() });
  // The sums every rank shares decide the end, so every rank stops at the same step.
  const atFinalSize = () => s.values.sums.length - s.values.sums.findLastIndex((n) => n !== finalSize) - 1;
  while (s.values.step < 400 && !(s.values.step >= steps && atFinalSize() >= 5)) {
    const step = s.values.step;
    if (workerId === env.KOLO_TEST_VICTIM && step === Number(env.KOLO_TEST_VICTIM_STEP)) process.kill(process.pid, env.KOLO_TEST_VICTIM_SIGNAL ?? 'SIGKILL');
    if (workerId === '0' && step === Number(env.KOLO_TEST_REHOST_STEP)) writeFileSync(env.KOLO_TEST_HOSTS_FILE, `${env.KOLO_TEST_REHOST_TO}\n`);
    const grad = s.values.weights.map((w, i) => (i + 1) * 0.01 * (kolo.rank() + 1));
    const avg = await kolo.allreduce(new Float64Array(grad), { op: 'average', name: `grad.${step}` });
    const [sum] = await kolo.allreduce(new Float64Array([1]), { op: 'sum', name: `count.${step}` });
    s.values.weights = s.values.weights.map((w, i) => w - 0.1 * avg[i]);
    s.values.sums.push(sum);
    s.values.step += 1;
    s.commit();
    await sleep(20);
  }
}, state, { initOptions: { timeoutMs } });
report('final', { ...state.values, size: kolo.size(), generation: kolo.elastic.generation(), attempts });
await kolo.shutdown();
