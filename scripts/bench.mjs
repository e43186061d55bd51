#!/usr/bin/env node
// npm run bench -- <name> [--np N] [--transport gloo,mpi]
// Runs packages/core/bench/<name>.mjs once per transport (Gloo under kolorun, MPI under mpirun)
// and prints the nccl-tests style tables side by side, with the ratio of bus bandwidths.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'packages', 'core', 'bench');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { np: { type: 'string', default: '2' }, transport: { type: 'string', default: 'gloo' } },
});
const name = positionals[0] ?? 'allreduce';
const script = join(benchDir, `${name}.mjs`);
if (!existsSync(script)) {
  const known = readdirSync(benchDir).map((f) => f.replace(/\.mjs$/, ''));
  console.error(`Unknown benchmark '${name}'. Known: ${known.join(', ')}`);
  process.exit(2);
}
const transports = values.transport.split(',').map((t) => t.trim());
const launcher = join(root, 'packages', 'launcher', 'dist', 'cli.js');

function run(transport) {
  const env = { ...process.env, KOLO_TRANSPORT: transport, KOLO_BENCH_JSON: '1' };
  const command =
    transport === 'mpi'
      ? ['mpirun', ['--oversubscribe', '-np', values.np, process.execPath, script], { ...env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' }]
      : [process.execPath, [launcher, '-np', values.np, process.execPath, script], env];
  const result = spawnSync(command[0], command[1], { env: command[2], encoding: 'utf8' });
  if (result.status !== 0) {
    console.error(`The ${transport} run failed:\n${result.stdout}\n${result.stderr}`);
    process.exit(1);
  }
  const rows = result.stdout.split('\n').filter((l) => l.includes('BENCH ')).map((l) => JSON.parse(l.slice(l.indexOf('BENCH ') + 6)));
  return rows;
}

const runs = transports.map((t) => ({ transport: t, rows: run(t) }));
const pad = (v, w) => String(v).padStart(w);
const first = runs[0].rows;
console.log(`# ${name}: ${values.np} ranks, float32 sum, GB = 1e9, busbw = algbw * 2(n-1)/n; transports: ${transports.join(', ')}`);
let header = `#${pad('size(B)', 11)}${pad('count', 11)}${pad('type', 7)}${pad('redop', 6)}`;
for (const { transport } of runs) header += ` |${pad(`${transport} time(us)`, 16)}${pad('algbw', 7)}${pad('busbw', 7)}${pad('#wrong', 7)}`;
if (runs.length > 1) header += ` |${pad(`${runs[0].transport}/${runs[1].transport} busbw`, 16)}`;
console.log(header);
first.forEach((row, i) => {
  let line = ` ${pad(row.bytes, 11)}${pad(row.count, 11)}${pad('float', 7)}${pad('sum', 6)}`;
  for (const { rows } of runs) {
    const r = rows[i];
    line += ` |${pad(r.us.toFixed(1), 16)}${pad(r.algbw.toFixed(2), 7)}${pad(r.busbw.toFixed(2), 7)}${pad(r.wrong, 7)}`;
  }
  if (runs.length > 1) line += ` |${pad((runs[0].rows[i].busbw / runs[1].rows[i].busbw).toFixed(2) + 'x', 16)}`;
  console.log(line);
});
for (const { transport, rows } of runs) {
  console.log(`# ${transport} avg bus bandwidth: ${(rows.reduce((a, r) => a + r.busbw, 0) / rows.length).toFixed(3)} GB/s`);
}
