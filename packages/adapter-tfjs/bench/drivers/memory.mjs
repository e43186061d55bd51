// Driver of `npm run bench -- memory [--steps 10000] [--every 1000] [--np 2]
// [--transport gloo]`: issue #9's memory target. Runs ../memory.mjs under kolorun, prints each
// rank's samples and a verdict: flat when the last sample's RSS is within 5% of both the first
// sample (taken after `every` warm-up steps) and the smallest one (a leak shows as a rise from the
// low point even where startup garbage made the first sample high), ArrayBuffer bytes (where
// leaked pinned buffers would show) likewise within 5% or 1 MiB, and live tfjs tensors and open
// descriptors did not grow at all.
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchRows, pad } from '../../../core/bench/drivers/launch.mjs';

const worker = join(dirname(fileURLToPath(import.meta.url)), '..', 'memory.mjs');
const tolerance = 0.05;
const arrayBufferSlackMiB = 1;

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
    const low = (key) => Math.min(...mine.map((r) => r[key]));
    const growth = (key, from) => (last[key] - from) / from;
    const rssOk = growth('rssMiB', base.rssMiB) <= tolerance && growth('rssMiB', low('rssMiB')) <= tolerance;
    const abOk = last.arrayBuffersMiB - low('arrayBuffersMiB') <= Math.max(arrayBufferSlackMiB, tolerance * low('arrayBuffersMiB'));
    const ok = rssOk && abOk && last.tensors <= base.tensors && last.fds <= base.fds;
    flat &&= ok;
    const pct = (key, from) => `${(growth(key, from) * 100).toFixed(1)}%`;
    console.log(`# rank ${rank}, step ${base.step} -> ${last.step}: RSS ${pct('rssMiB', base.rssMiB)} (${pct('rssMiB', low('rssMiB'))} from its low), heap ${pct('heapMiB', base.heapMiB)}, ArrayBuffers ${base.arrayBuffersMiB.toFixed(2)} -> ${last.arrayBuffersMiB.toFixed(2)} MiB (low ${low('arrayBuffersMiB').toFixed(2)}), tensors ${base.tensors} -> ${last.tensors}, fds ${base.fds} -> ${last.fds}${ok ? '' : '  GREW'}`);
    if (!mine[0].gc) console.log(`# rank ${rank}: global.gc was missing (node without --expose-gc); samples include uncollected garbage`);
  }
  console.log(`# verdict: ${flat ? 'FLAT' : 'NOT FLAT'} (RSS within ${tolerance * 100}% of the first and the lowest sample, ArrayBuffers within ${tolerance * 100}% or ${arrayBufferSlackMiB} MiB of their low, no new tensors or descriptors)`);
  return flat ? 0 : 1;
}
