import { invalidArgument, UnsupportedError } from '@kolo/core';

/**
 * A torch.distributed backend name. `gloo` and `mpi` run on Kolo's engine over the transport of
 * the same name; `nccl` is accepted by name and refused at `initProcessGroup` (see
 * `transportOf`).
 *
 * @example
 * ```ts
 * await initProcessGroup({ backend: 'gloo' satisfies BackendName });
 * ```
 */
export type BackendName = 'gloo' | 'mpi' | 'nccl';

/**
 * torch's `Backend` constants.
 *
 * @example
 * ```ts
 * await initProcessGroup({ backend: Backend.GLOO });
 * ```
 */
export const Backend = {
  /** Kolo's engine over Gloo (TCP); the default. */
  GLOO: 'gloo',
  /** Kolo's engine over MPI, for jobs started by mpirun. */
  MPI: 'mpi',
  /** Accepted by name; initProcessGroup refuses it (the tensors are TypedArrays, not CUDA). */
  NCCL: 'nccl',
} as const satisfies Record<string, BackendName>;

/**
 * torch's default process-group timeouts: 10 minutes for NCCL
 * (`kProcessGroupNCCLDefaultTimeout`), 30 minutes for everything else (`default_pg_timeout`).
 *
 * @example
 * ```ts
 * defaultTimeoutMs.gloo; // 1_800_000
 * ```
 */
export const defaultTimeoutMs: Readonly<Record<BackendName, number>> = {
  gloo: 30 * 60 * 1000,
  mpi: 30 * 60 * 1000,
  nccl: 10 * 60 * 1000,
};

/**
 * Checks a backend name, case-insensitively as torch's `Backend("GLOO")`; default `gloo` (torch
 * picks gloo for CPU tensors, and every tensor here is a CPU tensor).
 *
 * @example
 * ```ts
 * normalizeBackend('GLOO'); // 'gloo'
 * ```
 */
export function normalizeBackend(value: unknown): BackendName {
  if (value === undefined || value === null) return 'gloo';
  const name = typeof value === 'string' ? value.toLowerCase() : undefined;
  if (name === 'gloo' || name === 'mpi' || name === 'nccl') return name;
  throw invalidArgument({ what: "'gloo', 'mpi' or 'nccl'", name: 'backend', value });
}

/**
 * The Kolo transport that runs `backend`. NCCL throws an UnsupportedError: its collectives need
 * CUDA tensors, and the tensors of this package are TypedArrays and TensorFlow.js CPU tensors
 * (torch itself fails on CPU tensors with NCCL).
 *
 * @example
 * ```ts
 * transportOf('gloo'); // 'gloo'
 * ```
 */
export function transportOf(backend: BackendName): 'gloo' | 'mpi' {
  if (backend === 'nccl') {
    throw new UnsupportedError(
      "Backend 'nccl' needs CUDA tensors, but the tensors of @kolo/compat-ddp are TypedArrays " +
        "and TensorFlow.js CPU tensors. Use backend 'gloo' (or 'mpi' under mpirun).",
      { opName: 'initProcessGroup' },
    );
  }
  return backend;
}
