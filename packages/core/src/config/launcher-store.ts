import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NativeStoreConfig } from '@kolo/native';
import { UnsupportedError } from '../errors/unsupported-error.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { envField, toInteger, toText } from './config-field.js';
import type { Env } from './config-options.js';
import { configDefaults } from './defaults.js';
import type { LauncherKind } from './launcher-env.js';
import type { Topology } from './resolve-topology.js';

/** A store chosen for this process, and what this process must do about it. */
export interface StorePlan {
  readonly store: NativeStoreConfig;
  /** Set on the rank that must host a TCP store before the engine starts (torchrun rank 0). */
  readonly hostStore?: {
    /** The address to listen on (`0.0.0.0` unless the store address is a loopback one). */
    readonly host: string;
    /** The port to listen on. */
    readonly port: number;
    /** The job secret clients must prove. */
    readonly secret: string;
  };
  /** A temporary directory this process created and should remove at shutdown. */
  readonly ownedTempDir?: string;
}

/** What `launcherStore` needs to know. */
export interface LauncherStoreContext {
  readonly env: Env;
  readonly launcher: LauncherKind;
  readonly topology: Topology;
  readonly jobId: string;
  /** False when the job id is only the default (no launcher or user named the job). */
  readonly jobIdFound: boolean;
}

/**
 * The store a launcher implies when no `KOLO_STORE_*` is set: torchrun → a TCP store hosted by
 * rank 0 on `MASTER_PORT + 1` (or `KOLO_STORE_PORT`); MPI → a file store in
 * `os.tmpdir()/kolo-mpi-<job id>` (single host only); one process → a fresh temporary directory.
 *
 * @example
 * ```ts
 * launcherStore({ env: { MASTER_ADDR: 'n0', MASTER_PORT: '29500' }, launcher: 'torchrun', … });
 * // { store: { kind: 'tcp', host: 'n0', port: 29501, secret: '' }, hostStore: {...} on rank 0 }
 * ```
 */
export function launcherStore(context: LauncherStoreContext): StorePlan {
  const { env, launcher, topology } = context;
  if (launcher === 'torchrun') return torchrunStore(env, topology);
  if (launcher === 'mpi') return mpiStore(context);
  const httpRendezvous = envField(env, ['HOROVOD_GLOO_RENDEZVOUS_ADDR']);
  if (launcher === 'horovod' && httpRendezvous !== undefined && topology.size > 1) {
    throw new UnsupportedError(
      `horovodrun's Gloo rendezvous (HOROVOD_GLOO_RENDEZVOUS_ADDR=${String(
        httpRendezvous.value,
      )}) ` +
        'is an HTTP store Kolo cannot use. Start the job with kolorun, or also export ' +
        'KOLO_STORE_ADDR and KOLO_STORE_PORT pointing at a Kolo store.',
    );
  }
  const strayPort = envField(env, ['KOLO_STORE_PORT']);
  if (strayPort !== undefined) {
    throw invalidArgument({
      what: 'a host name (set with KOLO_STORE_PORT)',
      name: 'KOLO_STORE_ADDR',
      value: undefined,
    });
  }
  if (topology.size > 1) {
    throw invalidArgument({
      what: 'a rendezvous store (KOLO_STORE_ADDR and KOLO_STORE_PORT, KOLO_STORE_PATH, or options.store)',
      name: `a job of size ${topology.size}`,
      value: undefined,
    });
  }
  const ownedTempDir = mkdtempSync(join(tmpdir(), 'kolo-'));
  return { store: { kind: 'file', path: ownedTempDir }, ownedTempDir };
}

function torchrunStore(env: Env, topology: Topology): StorePlan {
  const addr = envField(env, ['MASTER_ADDR']) ?? { value: undefined, name: 'MASTER_ADDR' };
  const override = envField(env, ['KOLO_STORE_PORT']);
  const offset = configDefaults.torchrunStorePortOffset;
  const port =
    override !== undefined
      ? toInteger(override, { min: 1, max: 65535 })
      : toInteger(envField(env, ['MASTER_PORT']) ?? { value: undefined, name: 'MASTER_PORT' }, {
          min: 1,
          max: 65535 - offset,
        }) + offset;
  const host = toText(addr);
  const secret = env['KOLO_JOB_SECRET'] || torchrunSecret(env, host);
  const store: NativeStoreConfig = { kind: 'tcp', host, port, secret };
  const listenHost = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/.test(host) ? host : '0.0.0.0';
  return topology.rank === 0 ? { store, hostStore: { host: listenHost, port, secret } } : { store };
}

/**
 * torchrun hands out no secret, so without KOLO_JOB_SECRET every node derives the same one from
 * what all of them know. It keeps jobs apart but does not authenticate: anyone who can reach the
 * store and read these variables can join.
 */
function torchrunSecret(env: Env, host: string): string {
  return `torchrun:${host}:${env['MASTER_PORT'] ?? ''}:${env['TORCHELASTIC_RUN_ID'] ?? ''}`;
}

function mpiStore(context: LauncherStoreContext): StorePlan {
  const { topology } = context;
  if (!context.jobIdFound) {
    throw invalidArgument({
      what: 'a job id (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid or KOLO_JOB_ID) to name the MPI file store',
      name: 'KOLO_JOB_ID',
      value: undefined,
    });
  }
  if (topology.localSize !== topology.size) {
    throw new UnsupportedError(
      `Under mpirun without KOLO_STORE_*, Kolo's file store in ${tmpdir()} serves one host only, ` +
        `but this job has ${topology.size} ranks and ${topology.localSize} on this host. ` +
        'Export KOLO_STORE_ADDR and KOLO_STORE_PORT (a kolorun store) or KOLO_STORE_PATH (a shared directory).',
    );
  }
  const path = join(tmpdir(), `kolo-mpi-${context.jobId.replace(/[^A-Za-z0-9._-]/g, '_')}`);
  mkdirSync(path, { recursive: true });
  return { store: { kind: 'file', path } };
}
