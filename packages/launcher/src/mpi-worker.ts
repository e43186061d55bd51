#!/usr/bin/env node
/**
 * What `kolorun --mpi` asks mpirun to start on every rank: runs the real worker command, tags its
 * output as kolorun tags its own workers' (`[<rank>]<stdout>: `), and, when the worker fails,
 * records the failure in the job's store before exiting the same way, so kolorun can name the
 * rank that failed first and survivors' engines can too.
 */
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import type { Readable } from 'node:stream';
import { StoreClient } from '@kolo/core';
import { LAUNCH_DEFAULTS } from './launch-options.js';
import { claimFailure } from './job-store.js';
import { LinePrefixer, LineTail } from './output-prefix.js';
import { outputFiles, pipeStream } from './spawn-workers.js';

const env = process.env;
const rank = Number(env.OMPI_COMM_WORLD_RANK ?? env.PMI_RANK ?? 0);
const [program, ...args] = process.argv.slice(2);
if (program === undefined) {
  process.stderr.write('kolorun mpi-worker: expected a command to run but received nothing\n');
  process.exit(2);
}

// Its own process group, so stopping the worker also stops whatever it started.
const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
const signalWorker = (signal: NodeJS.Signals): void => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
};
const tail = new LineTail(LAUNCH_DEFAULTS.stderrTailLines);
const [outFile, errFile] = outputFiles(env.KOLO_OUTPUT_DIR, rank);
const drained = Promise.all([
  pipeStream(child.stdout as Readable, new LinePrefixer(`[${rank}]<stdout>: `, process.stdout), outFile),
  pipeStream(child.stderr as Readable, new LinePrefixer(`[${rank}]<stderr>: `, process.stderr), errFile, tail),
]);

// A signal from mpirun (the job is being stopped) goes to the worker and is not its failure; if
// it does not exit, or mpirun itself vanishes (we are re-parented), the worker's group is killed.
let stopping = false;
const stop = (signal: NodeJS.Signals): void => {
  stopping = true;
  signalWorker(signal);
  setTimeout(() => signalWorker('SIGKILL'), LAUNCH_DEFAULTS.killAfterMs).unref();
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop('SIGTERM');
}, 1000).unref();

async function record(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
  const port = Number(env.KOLO_STORE_PORT);
  if (stopping || !env.KOLO_STORE_ADDR || !Number.isInteger(port)) return;
  const client = await StoreClient.connect({ host: env.KOLO_STORE_ADDR, port, secret: env.KOLO_JOB_SECRET ?? '', timeoutMs: 5000 });
  try {
    await claimFailure(client, { rank, exitCode: code, signal, host: hostname() }, tail.lines());
  } finally {
    await client.close();
  }
}

child.on('error', (error) => {
  process.stderr.write(`[${rank}]<stderr>: kolorun: could not start ${JSON.stringify(program)}: ${error.message}\n`);
  void record(127, null).catch(() => {}).finally(() => process.exit(127));
});
child.on('exit', (code, signal) => {
  void (async () => {
    // Whatever the worker started goes with it, as kolorun's own workers' process groups do.
    signalWorker('SIGKILL');
    await drained;
    if (code !== 0) await record(code, signal).catch(() => {});
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  })();
});
