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
// Verdict FLAT when, on every rank, the last RSS is within 5% of the first sample after warm-up
// (sample 2) and the descriptor count is unchanged. Heap and external growth are reported too.
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
  },
});
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

/** Compares the last sample with the first after warm-up (sample 2), rank by rank. */
function verdict() {
  if (samples.length < 3) {
    console.log(`soak: only ${samples.length} sample(s); run longer (at least 3 intervals) for a verdict`);
    return false;
  }
  const [base, last] = [samples[1], samples.at(-1)];
  let flat = true;
  for (const b of base) {
    const l = last.find((r) => r.rank === b.rank);
    const peak = Math.max(...samples.slice(1).map((round) => round.find((r) => r.rank === b.rank).rss));
    const ok = (l.rss - b.rss) / b.rss <= tolerance && l.fds === b.fds;
    flat &&= ok;
    console.log(
      `soak: rank ${b.rank}, sample ${b.n} -> ${l.n}: RSS ${mib(b.rss)} -> ${mib(l.rss)} MiB (${pct(b.rss, l.rss)}, peak ${mib(peak)}),` +
        ` heapUsed ${mib(b.heapUsed)} -> ${mib(l.heapUsed)} MiB (${pct(b.heapUsed, l.heapUsed)}), heapTotal ${mib(b.heapTotal)} -> ${mib(l.heapTotal)} MiB,` +
        ` ext+AB ${mib(b.external + b.arrayBuffers)} -> ${mib(l.external + l.arrayBuffers)} MiB, fds ${b.fds} -> ${l.fds}${ok ? '' : '  GREW'}`,
    );
  }
  console.log(`soak: ${flat ? 'FLAT' : 'NOT FLAT'} (last sample vs sample 2: RSS within ${tolerance * 100}% and the same descriptor count on every rank)`);
  return flat;
}
