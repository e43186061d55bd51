#!/usr/bin/env node
// node scripts/soak.mjs [--minutes 30] [--np 4] [--interval-seconds 60]
// Soak test (not part of `npm test`): --np workers under kolorun loop over mixed collectives
// (allreduce of several dtypes and sizes, grouped allreduce, allgather, broadcast, alltoall,
// reducescatter, object collectives, the sync forms) for --minutes. Every interval it prints
// each rank's resident memory (VmRSS) and open descriptor count (/proc/<pid>/fd), and at the end
// a verdict: flat when the last sample is within 5% of the first one after a warm-up interval.
// Exit code: 0 flat, 1 grew, 2 the job failed.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = fileURLToPath(import.meta.url);
const root = join(dirname(here), '..');
const tolerance = 0.05;

if (process.argv[2] === '--worker') await worker(Number(process.argv[3]));
else await main();

async function main() {
  const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' }, np: { type: 'string', default: '4' }, 'interval-seconds': { type: 'string', default: '60' } } });
  const minutes = Number(values.minutes);
  const intervalMs = Number(values['interval-seconds']) * 1000;
  // A little slack, so the last interval's sample still sees every worker running.
  const deadline = Date.now() + minutes * 60_000 + 5000;
  const kolorun = join(root, 'packages', 'launcher', 'dist', 'cli.js');
  console.log(`soak: ${values.np} workers, ${minutes} min, a sample every ${intervalMs / 1000} s`);
  const job = spawn(process.execPath, [kolorun, '-np', values.np, process.execPath, here, '--worker', String(deadline)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pids = new Map();
  let buffered = '';
  job.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      const m = /SOAK pid (\d+) (\d+)/.exec(line);
      if (m) pids.set(Number(m[1]), Number(m[2]));
      else if (line.includes('SOAK')) console.log(line);
    }
  });
  const exited = new Promise((resolve) => job.on('close', (code) => resolve(code)));
  const samples = [];
  const timer = setInterval(() => {
    if (Date.now() >= deadline) return clearInterval(timer);
    const row = sample(pids);
    if (row.length === 0) return;
    samples.push(row);
    printRow(samples.length, row);
  }, intervalMs);
  const code = await exited;
  clearInterval(timer);
  if (code !== 0) {
    console.log(`soak: the job failed (kolorun exit code ${code})`);
    process.exit(2);
  }
  process.exit(verdict(samples) ? 0 : 1);
}

/** Each worker's [rank, pid, RSS in KiB, open fds], in rank order. */
function sample(pids) {
  return [...pids].sort(([a], [b]) => a - b).flatMap(([rank, pid]) => {
    try {
      const rssKiB = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
      return [[rank, pid, rssKiB, readdirSync(`/proc/${pid}/fd`).length]];
    } catch {
      return [];
    }
  });
}

function printRow(n, row) {
  if (n === 1) console.log(['sample', ...row.map(([rank]) => `rank ${rank} RSS MiB / fds`.padStart(22))].join(' '));
  console.log([String(n).padStart(6), ...row.map(([, , rss, fds]) => `${(rss / 1024).toFixed(1)} / ${fds}`.padStart(22))].join(' '));
}

/** Compares the last sample with the first after warm-up (the second), rank by rank. */
function verdict(samples) {
  if (samples.length < 3) {
    console.log(`soak: only ${samples.length} sample(s); run longer (at least 3 intervals) for a verdict`);
    return false;
  }
  const [base, last] = [samples[1], samples.at(-1)];
  let flat = true;
  for (const [rank, , rss, fds] of last) {
    const b = base.find(([r]) => r === rank);
    if (b === undefined) continue;
    const rssGrowth = (rss - b[2]) / b[2];
    const fdGrowth = (fds - b[3]) / b[3];
    const ok = rssGrowth <= tolerance && fdGrowth <= tolerance;
    flat &&= ok;
    console.log(`soak: rank ${rank}: RSS ${(b[2] / 1024).toFixed(1)} -> ${(rss / 1024).toFixed(1)} MiB (${(rssGrowth * 100).toFixed(1)}%), fds ${b[3]} -> ${fds} (${(fdGrowth * 100).toFixed(1)}%)${ok ? '' : '  GREW'}`);
  }
  console.log(`soak: ${flat ? 'FLAT' : 'NOT FLAT'} (last sample vs sample 2, tolerance ${tolerance * 100}%)`);
  return flat;
}

/** One rank: mixed collectives until `deadline` (ms since the epoch), then a clean shutdown. */
async function worker(deadline) {
  const kolo = await import('@kolo/core');
  await kolo.init();
  const rank = kolo.rank();
  const size = kolo.size();
  console.log(`SOAK pid ${rank} ${process.pid}`);
  let i = 0;
  // Every rank runs the same number of iterations: rank 0 decides when to stop.
  for (let more = true; more; i += 1) {
    await Promise.all([
      kolo.allreduce(new Float32Array(1 << 16).fill(rank), { op: 'sum', name: `soak.f32.${i % 2}` }),
      kolo.allreduce(new Float64Array(1000).fill(1), { op: 'average', name: `soak.f64.${i % 2}` }),
      kolo.allreduce(new Int32Array(17).fill(rank), { op: 'max', name: `soak.i32.${i % 2}` }),
      kolo.groupedAllreduce([new Float32Array(100), new Float32Array(3000)], { op: 'sum', name: `soak.grouped.${i % 2}` }),
      kolo.allgather(new Uint8Array(rank + 1).fill(rank), { name: `soak.gather.${i % 2}` }),
      kolo.broadcast(new Float32Array(4096).fill(rank), { root: i % size, name: `soak.bcast.${i % 2}` }),
      kolo.alltoall(new Int32Array(size * 8).fill(rank), { name: `soak.a2a.${i % 2}` }),
      kolo.reducescatter(new Float32Array(size * 64).fill(1), { op: 'sum', name: `soak.rs.${i % 2}` }),
    ]);
    kolo.allreduceSync(new Float32Array(256).fill(1), { op: 'sum', name: 'soak.sync' });
    await kolo.allgatherObject({ rank, i }, { name: `soak.objects.${i % 2}` });
    more = await kolo.broadcastObject(Date.now() < deadline, { root: 0, name: `soak.more.${i % 2}` });
  }
  if (rank === 0) console.log(`SOAK done: ${i} iterations of mixed collectives`);
  await kolo.shutdown();
}
