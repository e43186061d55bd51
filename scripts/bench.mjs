#!/usr/bin/env node
// npm run bench -- <name> [--np N] [--transport shm,shm-sync,gloo,mpi] [--baseline mpi-c,gloo-cc,torch] [--rounds 3]
// Runs packages/core/bench/<name>.mjs for each transport (shm: Kolo's default path under kolorun,
// shared memory on one host; gloo: the same with KOLO_SHM=0; mpi: under mpirun; a `-sync` suffix
// times allreduceSync instead of the awaited allreduce)
// and, for allreduce, allgather and broadcast, the C/C++ baselines in
// packages/core/bench/baselines (Open MPI at default settings: mpi_<name>.c; raw Gloo over TCP:
// gloo_<name>.cc; torch.distributed's Gloo backend: torch_<name>.py, where KOLO_BENCH_PYTHON or
// python3 has torch), then prints the nccl-tests style tables side by side with the ratio of the
// first column's bus bandwidth to each other column's. allreduce reduces into a separate output,
// Kolo and the C/C++ baselines alike; KOLO_BENCH_IN_PLACE=1 makes them all reduce in place
// (torch's all_reduce always does). The table's columns each run --rounds times, interleaved
// (default 3), and report medians over rounds, with each ratio's range. fusion, phases, floor, e2e
// and memory print tables of their own: their drivers (listed below) launch the workers and take their own
// options.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { baseTransport, benchRows, sh, transportEnv } from '../packages/core/bench/drivers/launch.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'packages', 'core', 'bench');
const drivers = {
  fusion: join(benchDir, 'drivers', 'fusion.mjs'),
  phases: join(benchDir, 'drivers', 'phases.mjs'),
  floor: join(benchDir, 'drivers', 'floor.mjs'),
  e2e: join(root, 'packages', 'adapter-tfjs', 'bench', 'drivers', 'e2e.mjs'),
  memory: join(root, 'packages', 'adapter-tfjs', 'bench', 'drivers', 'memory.mjs'),
};
const usage = `Usage: npm run bench -- <name> [options]

  allreduce | allgather | broadcast   nccl-tests style tables, Kolo beside the baselines
      --np N                          ranks (default 2)
      --transport shm,shm-sync,gloo,mpi
                                      Kolo columns (default shm; -sync: the blocking call)
      --baseline mpi-c,gloo-cc,torch  baseline columns (default none)
      --rounds R                      interleaved rounds per column (default 3)
      env: KOLO_BENCH_MIN_BYTES, KOLO_BENCH_MAX_BYTES, KOLO_BENCH_IN_PLACE=1
  latency                             4 KiB sync and async calls, back to back and from a barrier
  fusion                              N tensors submitted together against one allreduce
  phases                              where a small call's time goes (builds a traced addon)
  floor                               a small allreduce's floor from JS (1 rank + a C exchange) against Open MPI
  e2e                                 tfjs MNIST: DistributedOptimizer overhead and scaling
  memory                              RSS, heap and descriptors over 10,000 training steps
  (fusion, phases, floor, e2e and memory take their own options: see docs/performance.md)`;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(usage);
  process.exit(0);
}
if (Object.hasOwn(drivers, process.argv[2] ?? '')) {
  const { main } = await import(pathToFileURL(drivers[process.argv[2]]).href);
  process.exit(
    await main(process.argv.slice(3)).catch((error) => {
      if (error?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && error?.code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw error;
      console.error(`${process.argv[2]}: ${error.message}`);
      return 2;
    }),
  );
}
const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        np: { type: 'string', default: '2' },
        transport: { type: 'string', default: 'shm' },
        baseline: { type: 'string', default: '' },
        rounds: { type: 'string', default: '3' },
      },
    });
  } catch (error) {
    console.error(`bench: ${error.message}\n\n${usage}`);
    process.exit(2);
  }
})();
const name = positionals[0] ?? 'allreduce';
const script = join(benchDir, `${name}.mjs`);
if (!existsSync(script)) {
  const known = [...new Set([...readdirSync(benchDir).filter((f) => f.endsWith('.mjs')).map((f) => f.replace(/\.mjs$/, '')), ...Object.keys(drivers)])];
  console.error(`Unknown benchmark '${name}'. Known: ${known.join(', ')}`);
  process.exit(2);
}
const transports = values.transport.split(',').map((t) => t.trim());
const launcher = join(root, 'packages', 'launcher', 'dist', 'cli.js');

function run(transport) {
  const env = { ...process.env, ...transportEnv(transport), KOLO_BENCH_JSON: '1' };
  const command =
    baseTransport(transport) === 'mpi'
      ? ['mpirun', ['--oversubscribe', '-np', values.np, process.execPath, script], { ...env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' }]
      : [process.execPath, [launcher, '-np', values.np, process.execPath, script], env];
  const result = spawnSync(command[0], command[1], { env: command[2], encoding: 'utf8' });
  if (result.status !== 0) {
    console.error(`The ${transport} run failed:\n${result.stdout}\n${result.stderr}`);
    process.exit(1);
  }
  const rows = benchRows(result.stdout);
  return rows;
}

const minBytes = process.env.KOLO_BENCH_MIN_BYTES ?? '4096';
const maxBytes = process.env.KOLO_BENCH_MAX_BYTES ?? String(64 * 1024 * 1024);
const baselineDir = join(benchDir, 'baselines');
// nccl-tests' bus bandwidth factor and reduction column per collective.
const layouts = {
  allreduce: { redop: 'sum', busFactor: (n) => (2 * (n - 1)) / n, about: 'float32 sum, busbw = algbw * 2(n-1)/n' },
  allgather: { redop: 'none', busFactor: (n) => (n - 1) / n, about: 'float32, size = total output, busbw = algbw * (n-1)/n' },
  broadcast: { redop: 'none', busFactor: () => 1, about: 'float32, root 0, busbw = algbw' },
};
const layout = layouts[name] ?? layouts.allreduce;
const mpiEnv = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };

function baselineRows(stdout, n) {
  return benchRows(stdout).map(({ bytes, us, wrong }) => {
    const algbw = bytes / 1e9 / (us / 1e6);
    return { bytes, count: bytes / 4, us, algbw, busbw: algbw * layout.busFactor(n), wrong: wrong ?? '-' };
  });
}

function baselineSource(file) {
  if (!existsSync(join(baselineDir, file))) {
    console.error(`No baseline ${file} for '${name}' in ${baselineDir}`);
    process.exit(2);
  }
  return join(baselineDir, file);
}

/** Builds a baseline once; returns what runs it (resolving with its rows), or null to skip it. */
function prepareBaseline(kind) {
  const out = mkdtempSync(join(tmpdir(), 'kolo-baseline-'));
  const n = Number(values.np);
  if (kind === 'mpi-c') {
    sh('mpicc', ['-O2', '-o', join(out, 'mpi'), baselineSource(`mpi_${name}.c`)]);
    return async () => baselineRows(sh('mpirun', ['--oversubscribe', '-np', values.np, join(out, 'mpi'), minBytes, maxBytes], mpiEnv), n);
  }
  if (kind === 'gloo-cc') {
    sh('g++', ['-O2', '-std=c++17', '-o', join(out, 'gloo'), baselineSource(`gloo_${name}.cc`), '-lgloo', '-lpthread']);
    return () => runGloo(out, n);
  }
  if (kind === 'torch') {
    // torch.distributed (Gloo backend): skipped, with a note, where the Python has no torch.
    const python = process.env.KOLO_BENCH_PYTHON ?? 'python3';
    if (spawnSync(python, ['-c', 'import torch.distributed'], { encoding: 'utf8' }).status !== 0) {
      console.error(`# baseline torch skipped: ${python} cannot import torch (set KOLO_BENCH_PYTHON to a Python that has it)`);
      return null;
    }
    return () => runTorch(python, n);
  }
  console.error(`Unknown baseline '${kind}'. Known: mpi-c, gloo-cc, torch`);
  process.exit(2);
}

function runGloo(out, n) {
  const store = mkdtempSync(join(tmpdir(), 'kolo-baseline-store-'));
  return rank0Rows(n, (r) => spawn(join(out, 'gloo'), [String(r), String(n), store, minBytes, maxBytes], { stdio: ['ignore', 'pipe', 'inherit'] }));
}

function runTorch(python, n) {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const script = baselineSource(`torch_${name}.py`);
  return rank0Rows(n, (r) => spawn(python, [script, String(r), String(n), port, minBytes, maxBytes], { stdio: ['ignore', 'pipe', 'inherit'] }));
}

/** Starts `n` ranks with `spawnRank(r)`; resolves with rank 0's rows once all have exited. */
function rank0Rows(n, spawnRank) {
  const procs = Array.from({ length: n }, (_, r) =>
    new Promise((resolve) => {
      const child = spawnRank(r);
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.on('close', () => resolve(text));
    }),
  );
  return Promise.all(procs).then((texts) => baselineRows(texts[0], n));
}

if (!Object.hasOwn(layouts, name)) {
  const runs = transports.map((t) => ({ transport: t, rows: run(t) }));
  // Other benchmarks (latency) report one row of named medians per transport.
  console.log(`# ${name}: ${values.np} ranks; times in microseconds (medians)`);
  for (const { transport, rows } of runs) {
    for (const row of rows) {
      const cells = Object.entries(row).map(([k, v]) => `${k} ${typeof v === 'number' ? Number(v.toFixed(2)) : v}`);
      console.log(`${transport.padEnd(6)} ${cells.join(' | ')}`);
    }
  }
  process.exit(0);
}
// Every column runs once a round, each round starting one column later, so that a slow spell
// of this (shared, noisy) machine falls on every column alike; each size then reports, per
// column, the median over rounds of its per-run medians, and the ratios' range over rounds.
const rounds = Math.max(1, Number(values.rounds) || 1);
const columns = transports.map((t) => ({ transport: t, run: async () => run(t) }));
for (const kind of values.baseline.split(',').filter(Boolean)) {
  const runBaseline = prepareBaseline(kind);
  if (runBaseline !== null) columns.push({ transport: kind, run: runBaseline });
}
const perRound = columns.map(() => []);
for (let r = 0; r < rounds; r += 1) {
  for (let k = 0; k < columns.length; k += 1) {
    const c = (r + k) % columns.length;
    perRound[c].push(await columns[c].run());
  }
}
const medianOf = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const runs = columns.map(({ transport }, c) => ({
  transport,
  rows: perRound[c][0].map((row, i) => {
    const us = medianOf(perRound[c].map((rows) => rows[i].us));
    const algbw = row.bytes / 1e9 / (us / 1e6);
    const wrongs = perRound[c].map((rows) => rows[i].wrong);
    const wrong = wrongs.every((w) => w === '-') ? '-' : Math.max(...wrongs.map((w) => (w === '-' ? 0 : w)));
    return { ...row, us, algbw, busbw: algbw * layout.busFactor(Number(values.np)), wrong };
  }),
}));
/** Column 0's bus bandwidth over column c's, per round, at size i: [lowest, highest]. */
const ratioRange = (c, i) => {
  const ratios = perRound[0].map((rows, r) => perRound[c][r][i].us / rows[i].us);
  return [Math.min(...ratios), Math.max(...ratios)];
};
const pad = (v, w) => String(v).padStart(w);
const first = runs[0].rows;
const placement = name === 'allreduce' ? (process.env.KOLO_BENCH_IN_PLACE === '1' ? ', in place' : ', out of place') : '';
const roundsNote = rounds > 1 ? `; times: median over ${rounds} rounds of each run's median, ratios with their range over rounds` : '';
console.log(`# ${name}: ${values.np} ranks, ${layout.about}${placement}, GB = 1e9; transports: ${transports.join(', ')}${roundsNote}`);
let header = `#${pad('size(B)', 11)}${pad('count', 11)}${pad('type', 7)}${pad('redop', 6)}`;
for (const { transport } of runs) header += ` |${pad(`${transport} time(us)`, 18)}${pad('algbw', 7)}${pad('busbw', 7)}${pad('#wrong', 7)}`;
for (const other of runs.slice(1)) header += ` |${pad(`${runs[0].transport}/${other.transport}`, rounds > 1 ? 22 : 16)}`;
console.log(header);
first.forEach((row, i) => {
  let line = ` ${pad(row.bytes, 11)}${pad(row.count, 11)}${pad('float', 7)}${pad(layout.redop, 6)}`;
  for (const { rows } of runs) {
    const r = rows[i];
    line += ` |${pad(r.us.toFixed(1), 18)}${pad(r.algbw.toFixed(2), 7)}${pad(r.busbw.toFixed(2), 7)}${pad(r.wrong, 7)}`;
  }
  runs.slice(1).forEach((other, k) => {
    const ratio = (runs[0].rows[i].busbw / other.rows[i].busbw).toFixed(2) + 'x';
    const [low, high] = ratioRange(k + 1, i);
    line += ` |${rounds > 1 ? pad(`${ratio} ${low.toFixed(2)}-${high.toFixed(2)}`, 22) : pad(ratio, 16)}`;
  });
  console.log(line);
});
for (const { transport, rows } of runs) {
  console.log(`# ${transport} avg bus bandwidth: ${(rows.reduce((a, r) => a + r.busbw, 0) / rows.length).toFixed(3)} GB/s`);
}
