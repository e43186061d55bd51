// Elastic job: each step allreduce-sums 1 per rank into a counter and commits. The worker with
// KOLO_WORKER_ID == KOLO_TEST_VICTIM SIGKILLs itself at step KOLO_TEST_VICTIM_STEP; survivors
// roll back to the last commit, re-rendezvous under kolorun's next generation and finish. With
// KOLO_TEST_VICTIM2 set, that worker SIGKILLs itself at step KOLO_TEST_VICTIM2_STEP too. Each
// survivor reports which rank its failed collective named (`failure.<attempt>`).
import * as kolo from '@kolo/core';

const steps = Number(process.env.KOLO_TEST_STEPS ?? 20);
const victim = process.env.KOLO_TEST_VICTIM ?? '3';
const victimStep = Number(process.env.KOLO_TEST_VICTIM_STEP ?? 5);
const victim2 = process.env.KOLO_TEST_VICTIM2;
const victim2Step = Number(process.env.KOLO_TEST_VICTIM2_STEP ?? 10);
const workerId = process.env.KOLO_WORKER_ID;
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank: Number(workerId), key, value })}`);

await kolo.init({ timeoutMs: 20_000 });
report('env', { elastic: process.env.KOLO_ELASTIC, workerId });
const state = new kolo.elastic.ObjectState({ step: 0, total: 0, sums: [] });
let attempts = 0;
await kolo.elastic.run(async (s) => {
  attempts += 1;
  report(`start.${attempts}`, { step: s.values.step, rank: kolo.rank(), size: kolo.size(), generation: kolo.elastic.generation() });
  while (s.values.step < steps) {
    if (workerId === victim && s.values.step === victimStep) process.kill(process.pid, 'SIGKILL');
    if (workerId === victim2 && s.values.step === victim2Step) process.kill(process.pid, 'SIGKILL');
    const [sum] = await kolo.allreduce(new Float64Array([1]), { op: 'sum', name: `step.${s.values.step}` }).catch((error) => {
      report(`failure.${attempts}`, /Rank \d+ failed first( \([^)]*\))?/.exec(error.message)?.[0] ?? error.message);
      throw error;
    });
    s.values.sums.push(sum);
    s.values.total += sum;
    s.values.step += 1;
    s.commit();
  }
}, state, { initOptions: { timeoutMs: 20_000 } });
report('final', { ...state.values, rank: kolo.rank(), size: kolo.size(), attempts });
await kolo.shutdown();
