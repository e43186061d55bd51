// Driver of `npm run bench -- phases [--np 2] [--ops allreduce,allgather,broadcast]
// [--bytes 4096,16384] [--modes await,sync] [--iterations 3000] [--gap-us 0] [--no-build]`: where a small
// call's time goes. Builds the addon with the phase trace points (src/engine/trace_points.h;
// -DKOLO_PHASE_TRACE=ON, into packages/native/build-phases) unless --no-build, runs ../phases.mjs
// on it once per op, size and mode, and prints, for the path most calls took on rank 0, the
// median time between consecutive trace points, from one call's entry into the addon to the
// next's. The default build has no trace points, so it is never the one measured here.
// --gap-us busy-waits that long before each call on every rank, standing in for a step's compute
// (then `returned>call` includes it, and the median call excludes it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchRows, pad } from './launch.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const worker = join(here, '..', 'phases.mjs');
const nativeDir = join(here, '..', '..', '..', 'native');
const tracedAddon = join(nativeDir, 'build-phases', 'Release', 'kolo_native.node');

// What happens between two trace points, by their tags (a `*` marks the engine's own thread).
const steps = {
  'call>queued': 'binding: read the call, queue its entries',
  'queued>cycle': 'take the cycle',
  'queued>handed-off': 'wait for peers, then hand the cycle to the engine thread',
  'cycle>votes-out': 'cycle start: votes, speculated data published',
  'cycle>negotiated': 'the negotiation (one rank: no exchange)',
  'votes-out>votes-in': "exchange: wait for every peer's votes",
  'votes-out>handed-off': "no peer's votes within the spin: the engine thread ends the cycle",
  'votes-in>negotiated': 'reduce the votes and the data that travelled with them',
  'negotiated>performed': 'perform what did not travel with the votes',
  'performed>deliver': 'end of cycle, to the delivery',
  'performed>returned': 'end of cycle, wake the blocked caller',
  'deliver>settle': 'results into JS values',
  'settle>settled': 'the JS settle function: finish each call, resolve the promises',
  'settled>returned': 'release the call, return to JS',
  'returned>call': 'JS: resume the awaiting code, then the next call up to the addon',
};
// The blocking call runs the cycle at once (DriveUntil), and its JS is a loop.
const syncSteps = {
  'returned>call': "JS: the caller's loop and the next call up to the addon",
};

/** Runs the bench; resolves with the exit code. */
export async function main(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      np: { type: 'string', default: '2' },
      ops: { type: 'string', default: 'allreduce,allgather,broadcast' },
      bytes: { type: 'string', default: '4096,16384' },
      modes: { type: 'string', default: 'await,sync' },
      iterations: { type: 'string', default: '3000' },
      'gap-us': { type: 'string', default: '0' },
      'no-build': { type: 'boolean', default: false },
    },
  });
  if (!values['no-build']) {
    const build = spawnSync('npx', ['cmake-js', 'compile', '--out', 'build-phases', '--CDKOLO_PHASE_TRACE=ON', '--', '-j', '2'], { cwd: nativeDir, encoding: 'utf8' });
    if (build.status !== 0) {
      console.error(`Building the traced addon failed:\n${build.stdout}\n${build.stderr}`);
      return 1;
    }
  }
  if (!existsSync(tracedAddon)) {
    console.error(`No traced addon at ${tracedAddon}; run without --no-build first.`);
    return 1;
  }
  const iters = Number(values.iterations);
  console.log(`# phases: where a small call's time goes on rank 0, an addon with trace points (median µs between consecutive points`);
  console.log(`# over the calls that took the most common path; a '*' marks a point on the engine's own thread); ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const op of values.ops.split(',')) {
    for (const bytes of values.bytes.split(',')) {
      for (const mode of values.modes.split(',')) runOne({ np: values.np, op, bytes, sync: mode === 'sync', iters, gapUs: values['gap-us'] });
    }
  }
  return 0;
}

/** Runs the worker once on the traced addon and prints rank 0's phases. */
function runOne({ np, op, bytes, sync, iters, gapUs }) {
  const dir = mkdtempSync(join(tmpdir(), 'kolo-phases-'));
  try {
    const [row] = launchRows({
      script: worker,
      np,
      transport: 'shm',
      env: {
        KOLO_NATIVE_PATH: tracedAddon,
        KOLO_PHASE_TRACE: join(dir, 'trace'),
        KOLO_BENCH_PHASE_OP: op,
        KOLO_BENCH_PHASE_BYTES: bytes,
        KOLO_BENCH_SYNC: sync ? '1' : '0',
        KOLO_BENCH_ITERS: String(iters),
        KOLO_BENCH_GAP_US: gapUs,
      },
    });
    printPhases(row, analyse(readFileSync(join(dir, 'trace.0'), 'utf8'), iters), sync);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Splits the trace into calls (from one `call` point to the next) and groups the last `iters` by path. */
export function analyse(text, iters) {
  const records = text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      const [tag, ns, background] = l.split(' ');
      return { tag: background === '1' ? `${tag}*` : tag, ns: Number(ns) };
    });
  const starts = [];
  records.forEach((r, i) => r.tag === 'call' && starts.push(i));
  const paths = new Map();
  const first = Math.max(0, starts.length - 1 - iters);
  for (let k = first; k < starts.length - 1; k += 1) {
    const seq = records.slice(starts[k], starts[k + 1] + 1);
    const key = seq.slice(0, -1).map((r) => r.tag).join(' ');
    let path = paths.get(key);
    if (path === undefined) paths.set(key, (path = { tags: seq.map((r) => r.tag), steps: [], totals: [] }));
    path.steps.push(seq.slice(1).map((r, i) => (r.ns - seq[i].ns) / 1000));
    path.totals.push((seq[seq.length - 1].ns - seq[0].ns) / 1000);
  }
  return [...paths.values()].sort((a, b) => b.totals.length - a.totals.length);
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function printPhases(row, paths, sync) {
  const calls = paths.reduce((n, p) => n + p.totals.length, 0);
  const [main, ...others] = paths;
  const gap = row.gapUs > 0 ? `, after ${row.gapUs} µs of busy-waiting` : '';
  console.log(`\n# ${row.op} ${row.bytes} B, ${sync ? 'blocking' : 'awaited'}${gap}, ${row.np} ranks: the worker's median call ${row.us.toFixed(2)} µs; ${main.totals.length} of ${calls} calls took this path`);
  console.log(`#${pad('from', 12)} ${pad('to', 12)}${pad('median', 9)}${pad('p25', 8)}${pad('p75', 8)}   what happens between them`);
  main.tags.slice(1).forEach((to, i) => {
    const from = main.tags[i];
    const times = main.steps.map((s) => s[i]);
    const key = `${from.replace('*', '')}>${to.replace('*', '')}`;
    const what = (sync ? syncSteps[key] : undefined) ?? steps[key] ?? '';
    console.log(` ${pad(from, 12)} ${pad(to, 12)}${pad(quantile(times, 0.5).toFixed(2), 9)}${pad(quantile(times, 0.25).toFixed(2), 8)}${pad(quantile(times, 0.75).toFixed(2), 8)}   ${what}`);
  });
  console.log(` ${pad('total', 25)}${pad(quantile(main.totals, 0.5).toFixed(2), 9)}${pad(quantile(main.totals, 0.25).toFixed(2), 8)}${pad(quantile(main.totals, 0.75).toFixed(2), 8)}`);
  if (others.length > 0) {
    const rest = others.flatMap((p) => p.totals);
    const handedOff = others.filter((p) => p.tags.some((t) => t.endsWith('*'))).reduce((n, p) => n + p.totals.length, 0);
    console.log(` other paths: ${rest.length} calls (${handedOff} through the engine thread), median ${quantile(rest, 0.5).toFixed(1)} µs`);
  }
}
