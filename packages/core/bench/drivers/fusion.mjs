// Driver of `npm run bench -- fusion [--np 2,3] [--transport shm,gloo,mpi] [--reps 20]
// [--tensors 50,200,1000]`: runs ../fusion.mjs once per world size and transport and prints one
// table with the ratio (N tensors submitted together / one allreduce of the same bytes) and
// issue #9's target (200 tensors: <= 2x).
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchRows, pad } from './launch.mjs';

const worker = join(dirname(fileURLToPath(import.meta.url)), '..', 'fusion.mjs');
const targetTensors = 200;
const targetRatio = 2;

/** Runs the bench; resolves with the exit code (0 even when a target is missed). */
export async function main(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      np: { type: 'string', default: '2' },
      transport: { type: 'string', default: 'shm' },
      reps: { type: 'string', default: '20' },
      tensors: { type: 'string', default: '50,200,1000' },
    },
  });
  const env = { KOLO_BENCH_REPS: values.reps, KOLO_BENCH_FUSION_TENSORS: values.tensors };
  console.log(`# fusion: N float32 tensors of 4 KiB submitted together (Promise.all, one name each) vs one allreduce of N x 4 KiB; sum;`);
  console.log(`# median over ${values.reps} repetitions on rank 0, each timed from a barrier ('of it JS': the N allreduce calls before any wait);`);
  console.log(`# target: ${targetTensors} tensors <= ${targetRatio}x one allreduce; ${cpus().length} cores, load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`# 'grouped': the same N tensors as one groupedAllreduce call, and its ratio to one allreduce ('g.ratio')`);
  console.log(`# 'paired': the median of the ratios within each repetition (its three timings back to back), for N tensors and grouped;`);
  console.log(`# the machine's drift between repetitions then falls on both sides of each ratio. The target column reads the ratio of medians.`);
  console.log(`#${pad('ranks', 6)}${pad('transport', 10)}${pad('tensors', 8)}${pad('total(B)', 10)} |${pad('N tensors(us)', 14)}${pad('of it JS(us)', 13)}${pad('one(us)', 10)} |${pad('ratio', 8)}${pad('grouped(us)', 12)}${pad('g.ratio', 8)}${pad('#wrong', 7)} |${pad('paired', 8)}${pad('g.paired', 9)} | target`);
  for (const np of values.np.split(',')) {
    for (const transport of values.transport.split(',')) {
      for (const row of launchRows({ script: worker, np, transport, env })) {
        const met = (ratio) => (ratio <= targetRatio ? 'met' : 'NOT met');
        const target = row.tensors === targetTensors ? `<= ${targetRatio}x: calls ${met(row.ratio)}, grouped ${met(row.groupedRatio)}` : '-';
        console.log(` ${pad(row.np, 6)}${pad(transport, 10)}${pad(row.tensors, 8)}${pad(row.bytes, 10)} |${pad(row.manyUs.toFixed(0), 14)}${pad(row.submitUs.toFixed(0), 13)}${pad(row.oneUs.toFixed(0), 10)} |${pad(row.ratio.toFixed(2) + 'x', 8)}${pad(row.groupedUs.toFixed(0), 12)}${pad(row.groupedRatio.toFixed(2) + 'x', 8)}${pad(row.wrong, 7)} |${pad(row.pairedRatio.toFixed(2) + 'x', 8)}${pad(row.groupedPairedRatio.toFixed(2) + 'x', 9)} | ${target}`);
      }
    }
  }
  return 0;
}
