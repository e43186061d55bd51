// Driver of `npm run bench -- fusion [--np 2,3] [--transport shm,gloo,mpi] [--reps 20]
// [--tensors 50,200,1000] [--baseline torch]`: runs ../fusion.mjs once per world size and
// transport and prints one table with the ratio (N tensors submitted together / one allreduce of
// the same bytes) and issue #9's target (200 tensors: <= 2x); with `--baseline torch`, a second
// table of the same three ways in torch.distributed (../baselines/torch_fusion.py).
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchRows, pad } from './launch.mjs';

const benchDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const worker = join(benchDir, 'fusion.mjs');
const torchScript = join(benchDir, 'baselines', 'torch_fusion.py');
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
      baseline: { type: 'string', default: '' },
    },
  });
  const baselines = values.baseline.split(',').filter(Boolean);
  const unknown = baselines.find((b) => b !== 'torch');
  if (unknown !== undefined) {
    console.error(`Unknown fusion baseline '${unknown}'. Known: torch`);
    return 2;
  }
  const env = { KOLO_BENCH_REPS: values.reps, KOLO_BENCH_FUSION_TENSORS: values.tensors };
  console.log(`# fusion: N float32 tensors of 4 KiB submitted together (Promise.all, one name each) vs one allreduce of N x 4 KiB; sum;`);
  console.log(`# median over ${values.reps} repetitions on rank 0, each timed from a barrier ('of it JS': the N allreduce calls before any wait);`);
  console.log(`# target: ${targetTensors} tensors <= ${targetRatio}x one allreduce; ${cpus().length} cores, load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`# 'grouped': the same N tensors as one groupedAllreduce call, and its ratio to one allreduce ('g.ratio')`);
  console.log(`# 'paired': the median of the ratios within each repetition (its three timings back to back), for N tensors and grouped;`);
  console.log(`# the machine's drift between repetitions then falls on both sides of each ratio. The target column reads the ratio of medians.`);
  console.log(`#${pad('ranks', 6)}${pad('transport', 10)}${pad('tensors', 8)}${pad('total(B)', 10)} |${pad('N tensors(us)', 14)}${pad('of it JS(us)', 13)}${pad('one(us)', 10)} |${pad('ratio', 8)}${pad('grouped(us)', 12)}${pad('g.ratio', 8)}${pad('#wrong', 7)} |${pad('paired', 8)}${pad('g.paired', 9)} | target`);
  const kolo = new Map();  // "np/tensors" -> the first transport's row, for the torch table
  for (const np of values.np.split(',')) {
    for (const transport of values.transport.split(',')) {
      for (const row of launchRows({ script: worker, np, transport, env })) {
        if (!kolo.has(`${np}/${row.tensors}`)) kolo.set(`${np}/${row.tensors}`, row);
        const met = (ratio) => (ratio <= targetRatio ? 'met' : 'NOT met');
        const target = row.tensors === targetTensors ? `<= ${targetRatio}x: calls ${met(row.ratio)}, grouped ${met(row.groupedRatio)}` : '-';
        console.log(` ${pad(row.np, 6)}${pad(transport, 10)}${pad(row.tensors, 8)}${pad(row.bytes, 10)} |${pad(row.manyUs.toFixed(0), 14)}${pad(row.submitUs.toFixed(0), 13)}${pad(row.oneUs.toFixed(0), 10)} |${pad(row.ratio.toFixed(2) + 'x', 8)}${pad(row.groupedUs.toFixed(0), 12)}${pad(row.groupedRatio.toFixed(2) + 'x', 8)}${pad(row.wrong, 7)} |${pad(row.pairedRatio.toFixed(2) + 'x', 8)}${pad(row.groupedPairedRatio.toFixed(2) + 'x', 9)} | ${target}`);
      }
    }
  }
  if (baselines.includes('torch')) await torchTable(values, kolo);
  return 0;
}

/**
 * The torch.distributed (Gloo) table: the same N tensors as separate async allreduces, one
 * allreduce of their bytes and one all_reduce_coalesced, and how many times Kolo's time (the first
 * transport's) is shorter. Run after Kolo's, not interleaved with it: the machine may have
 * drifted in between, which matters little beside differences of this size.
 */
async function torchTable(values, kolo) {
  const python = process.env.KOLO_BENCH_PYTHON ?? 'python3';
  if (spawnSync(python, ['-c', 'import torch.distributed'], { encoding: 'utf8' }).status !== 0) {
    console.log(`# baseline torch skipped: ${python} cannot import torch (set KOLO_BENCH_PYTHON to a Python that has it)`);
    return;
  }
  console.log(`# torch.distributed ${spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).stdout.trim()}, Gloo backend, the same tensors and repetitions:`);
  console.log(`# 'N async': one all_reduce(async_op=True) per tensor, then every wait(); 'coalesced': all_reduce_coalesced (one flattened allreduce);`);
  console.log(`# 'Kolo x': torch's time over Kolo's (${values.transport.split(',')[0]}) for N tensors submitted together, and for coalesced over Kolo's grouped call`);
  console.log(`#${pad('ranks', 6)}${pad('tensors', 8)} |${pad('N async(us)', 14)}${pad('one(us)', 10)}${pad('coalesced(us)', 14)}${pad('#wrong', 7)} |${pad('ratio', 8)} |${pad('Kolo x', 9)}${pad('grouped x', 10)}`);
  for (const np of values.np.split(',')) {
    for (const row of await torchRows(python, Number(np), values.reps, values.tensors)) {
      const mine = kolo.get(`${np}/${row.tensors}`);
      const times = (theirs, ours) => (theirs === undefined || ours === undefined ? '-' : `${(theirs / ours).toFixed(0)}x`);
      const coalesced = row.coalescedUs === undefined ? '-' : row.coalescedUs.toFixed(0);
      console.log(` ${pad(np, 6)}${pad(row.tensors, 8)} |${pad(row.manyUs.toFixed(0), 14)}${pad(row.oneUs.toFixed(0), 10)}${pad(coalesced, 14)}${pad(row.wrong, 7)} |${pad((row.manyUs / row.oneUs).toFixed(2) + 'x', 8)} |${pad(times(row.manyUs, mine?.manyUs), 9)}${pad(times(row.coalescedUs, mine?.groupedUs), 10)}`);
    }
  }
}

/** Runs torch_fusion.py on `n` ranks; resolves with rank 0's rows. */
async function torchRows(python, n, reps, tensors) {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const outputs = await Promise.all(
    Array.from({ length: n }, (_, r) =>
      new Promise((resolve, reject) => {
        const child = spawn(python, [torchScript, String(r), String(n), port, reps, tensors], { stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (d) => (text += d));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`torch_fusion.py rank ${r} exited with ${code}`))));
      }),
    ),
  );
  return outputs[0].split('\n').filter((l) => l.startsWith('BENCH ')).map((l) => JSON.parse(l.slice(6)));
}
