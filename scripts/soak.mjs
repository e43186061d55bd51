#!/usr/bin/env node
// node scripts/soak.mjs [--minutes 30] [--np 4] [--interval-seconds 60] [--pause-ms 30]
// Soak test (not part of `npm test`): --np workers (scripts/soak-worker.mjs, node --expose-gc)
// under kolorun loop over mixed collectives (allreduce of several dtypes and sizes, grouped
// allreduce, allgather, broadcast, alltoall, reducescatter, object collectives, the sync form) for
// --minutes, sleeping --pause-ms between iterations so as to share the machine. The default 30 ms
// caps a rank at ~33 iterations (11 collectives each) a second; measured at 4 ranks on 2 cores:
// 19 a second at load 4-6 (the whole job using 0.42 of one core), 13.5 at load 7-16.
// Run it as `nice -n 10 node scripts/soak.mjs` beside other work.
// Every interval all ranks collect garbage at the same iteration and report RSS, JS heap,
// external + ArrayBuffer memory and open descriptors; the table prints them per rank.
// Verdict FLAT when, on every rank, every sample after the warm-up (--warmup-minutes, default a
// third of the run) has RSS within 5% of the first sample after it and the same descriptor
// count. The warm-up is where the allocators settle: V8 grows its young generation towards its
// cap (heapTotal 9 -> 40 MiB at this allocation rate) and glibc raises its mmap threshold, so
// RSS steps up during the first minutes without anything leaking. Heap and external growth, the
// RSS slope after warm-up and the change since sample 2 are printed beside the verdict.
// Run it on the Gloo path with KOLO_SHM=0 (the workers inherit the environment).
// Exit code: 0 flat, 1 grew, 2 the job failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tolerance = 0.05;
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);
const pct = (from, to) => `${to >= from ? '+' : ''}${(((to - from) / from) * 100).toFixed(1)}%`;

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    np: { type: 'string', default: '4' },
    'interval-seconds': { type: 'string', default: '60' },
    'pause-ms': { type: 'string', default: '30' },
    'warmup-minutes': { type: 'string' },
  },
});
const warmupSeconds = Number(values['warmup-minutes'] ?? Number(values.minutes) / 3) * 60;
const np = Number(values.np);
const kolorun = join(root, 'packages', 'launcher', 'dist', 'cli.js');
const worker = join(root, 'scripts', 'soak-worker.mjs');
const workerArgs = [values.minutes, values['interval-seconds'], values['pause-ms']];
console.log(`soak: ${np} workers, ${values.minutes} min, a sample every ${values['interval-seconds']} s, ${values['pause-ms']} ms pause per iteration`);
const job = spawn(process.execPath, [kolorun, '-np', String(np), process.execPath, '--expose-gc', worker, ...workerArgs], { stdio: ['ignore', 'pipe', 'inherit'] });

/** Sample number -> the rank reports received so far. */
const rounds = new Map();
const samples = [];
let buffered = '';
job.stdout.on('data', (chunk) => {
  buffered += chunk;
  const lines = buffered.split('\n');
  buffered = lines.pop();
  for (const line of lines) {
    const at = line.indexOf('SOAK mem ');
    if (at < 0) {
      if (line.includes('SOAK')) console.log(line);
      continue;
    }
    const report = JSON.parse(line.slice(at + 'SOAK mem '.length));
    const round = rounds.get(report.n) ?? [];
    round.push(report);
    rounds.set(report.n, round);
    if (round.length === np) {
      round.sort((a, b) => a.rank - b.rank);
      samples.push(round);
      printRound(round);
    }
  }
});
const code = await new Promise((resolve) => job.on('close', resolve));
if (code !== 0) {
  console.log(`soak: the job failed (kolorun exit code ${code})`);
  process.exit(2);
}
process.exit(verdict() ? 0 : 1);

function printRound(round) {
  if (round[0].n === 1) console.log('sample     s  iters  load1 rank  RSS(MiB) heapUsed(MiB) heapTotal(MiB) ext+AB(MiB)  fds');
  for (const r of round) {
    const cells = [r.n, r.seconds.toFixed(0), r.iterations, r.load1.toFixed(2), r.rank, mib(r.rss), mib(r.heapUsed), mib(r.heapTotal), mib(r.external + r.arrayBuffers), r.fds];
    const widths = [6, 5, 6, 6, 4, 9, 13, 14, 11, 4];
    console.log(cells.map((c, k) => String(c).padStart(widths[k])).join(' '));
  }
}

/** Least-squares slope of (seconds, bytes) points, in MiB per hour. */
function slopeMiBPerHour(points) {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return sxx === 0 ? 0 : (sxy / sxx) * 3600 / 1024 / 1024;
}

/** Checks every sample after warm-up against the first one after it, rank by rank. */
function verdict() {
  const steady = samples.filter((round) => round[0].seconds >= warmupSeconds);
  if (steady.length < 3) {
    console.log(`soak: only ${steady.length} sample(s) after the ${warmupSeconds / 60}-minute warm-up; run longer (at least 3) for a verdict`);
    return false;
  }
  const base = steady[0];
  let flat = true;
  for (const b of base) {
    const series = steady.map((round) => round.find((r) => r.rank === b.rank));
    const l = series.at(-1);
    const peak = Math.max(...series.map((r) => r.rss));
    const low = Math.min(...series.map((r) => r.rss));
    const ok = (peak - b.rss) / b.rss <= tolerance && series.every((r) => r.fds === b.fds);
    flat &&= ok;
    const early = samples[1]?.find((r) => r.rank === b.rank);
    console.log(
      `soak: rank ${b.rank}, samples ${b.n} -> ${l.n}: RSS ${mib(b.rss)} -> ${mib(l.rss)} MiB (${pct(b.rss, l.rss)}, range ${mib(low)}-${mib(peak)},` +
        ` slope ${slopeMiBPerHour(series.map((r) => [r.seconds, r.rss])).toFixed(1)} MiB/h), heapUsed ${mib(b.heapUsed)} -> ${mib(l.heapUsed)} MiB (${pct(b.heapUsed, l.heapUsed)}),` +
        ` heapTotal ${mib(b.heapTotal)} -> ${mib(l.heapTotal)} MiB, ext+AB ${mib(b.external + b.arrayBuffers)} -> ${mib(l.external + l.arrayBuffers)} MiB,` +
        ` fds ${b.fds} -> ${l.fds}${early ? `; since sample 2: RSS ${pct(early.rss, l.rss)}` : ''}${ok ? '' : '  GREW'}`,
    );
  }
  console.log(
    `soak: ${flat ? 'FLAT' : 'NOT FLAT'} (after the ${(warmupSeconds / 60).toFixed(0)}-minute warm-up, every sample's RSS within ${tolerance * 100}% of sample ${base[0].n}'s and the same descriptor count, on every rank)`,
  );
  return flat;
}
