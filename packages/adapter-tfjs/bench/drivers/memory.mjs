// Driver of `npm run bench -- memory [--steps 10000] [--every 1000] [--np 2]
// [--transport gloo]`: issue #9's memory target. Runs ../memory.mjs under kolorun, prints each
// rank's samples and a verdict: flat when, from the first sample (after `every` warm-up steps) to
// the last, RSS and ArrayBuffer bytes (where leaked pinned buffers would show) grew by at most 5%
// and live tfjs tensors and open descriptors did not grow at all.
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchRows, pad } from '../../../core/bench/drivers/launch.mjs';

const worker = join(dirname(fileURLToPath(import.meta.url)), '..', 'memory.mjs');
const tolerance = 0.05;

/** Runs the bench; resolves with 0 when flat, 1 when something grew. */
export async function main(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      steps: { type: 'string', default: '10000' },
      every: { type: 'string', default: '1000' },
      np: { type: 'string', default: '2' },
      transport: { type: 'string', default: 'gloo' },
    },
  });
  console.log(`# memory: ${values.np} workers, 784-32-10 dense model, DistributedOptimizer(SGD), batch 16 of real MNIST digits, ${values.steps} steps,`);
  console.log(`# a sample every ${values.every} steps after a full GC; ${cpus().length} cores, load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const env = { KOLO_BENCH_STEPS: values.steps, KOLO_BENCH_EVERY: values.every };
  const rows = launchRows({ script: worker, np: values.np, transport: values.transport, env, nodeArgs: ['--expose-gc'] });
  const ranks = [...new Set(rows.map((r) => r.rank))].sort((a, b) => a - b);
  console.log(`#${pad('step', 7)}${pad('rank', 5)}${pad('RSS(MiB)', 10)}${pad('heap(MiB)', 10)}${pad('ArrayBuf(MiB)', 14)}${pad('tensors', 8)}${pad('fds', 5)}${pad('s', 8)}`);
  for (const r of [...rows].sort((a, b) => a.step - b.step || a.rank - b.rank)) {
    console.log(` ${pad(r.step, 7)}${pad(r.rank, 5)}${pad(r.rssMiB.toFixed(1), 10)}${pad(r.heapMiB.toFixed(1), 10)}${pad(r.arrayBuffersMiB.toFixed(2), 14)}${pad(r.tensors, 8)}${pad(r.fds, 5)}${pad(r.seconds.toFixed(1), 8)}`);
  }
  let flat = true;
  for (const rank of ranks) {
    const mine = rows.filter((r) => r.rank === rank).sort((a, b) => a.step - b.step);
    if (mine.length < 2) {
      console.log(`# rank ${rank}: fewer than 2 samples; raise --steps or lower --every`);
      flat = false;
      continue;
    }
    const [base, last] = [mine[0], mine.at(-1)];
    const growth = (key) => (last[key] - base[key]) / base[key];
    const ok = growth('rssMiB') <= tolerance && growth('arrayBuffersMiB') <= tolerance && last.tensors <= base.tensors && last.fds <= base.fds;
    flat &&= ok;
    const pct = (key) => `${(growth(key) * 100).toFixed(1)}%`;
    console.log(`# rank ${rank}, step ${base.step} -> ${last.step}: RSS ${pct('rssMiB')}, heap ${pct('heapMiB')}, ArrayBuffers ${pct('arrayBuffersMiB')}, tensors ${base.tensors} -> ${last.tensors}, fds ${base.fds} -> ${last.fds}${ok ? '' : '  GREW'}`);
  }
  console.log(`# verdict: ${flat ? 'FLAT' : 'NOT FLAT'} (RSS and ArrayBuffers within ${tolerance * 100}%, no new tensors or descriptors)`);
  return flat ? 0 : 1;
}
