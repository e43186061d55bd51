import type { NativeBinding, NativeEngine } from '@kolo/native';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { NotInitializedError } from '../errors/not-initialized-error.js';
import type { RequestQueue } from './request-queue.js';

/** A started engine and everything that belongs to its generation. */
export interface Running {
  readonly binding: NativeBinding;
  readonly engine: NativeEngine;
  readonly config: ResolvedConfig;
  /** Per-op counters for unnamed requests (`allreduce.noname.<n>`); fresh every generation. */
  readonly counters: Map<string, number>;
  /** Async calls of the current JS turn, handed to the engine together. */
  readonly queue: RequestQueue;
}

/** One init() call's lifetime: starting, running, or stopping. */
export interface Session {
  phase: 'starting' | 'running' | 'stopping';
  /** Options fingerprint, to tell a repeated init() from a conflicting one. */
  readonly key: string;
  /** The binding passed in the options, if any. */
  readonly injected: NativeBinding | undefined;
  /** Settles when the engine started (or failed to). */
  readonly ready: Promise<void>;
  running?: Running;
  /** Closes what init() opened besides the engine (a hosted store, a temporary directory). */
  release?: () => Promise<void>;
}

/** The process-wide runtime: at most one session, and the count of engines started so far. */
export const runtimeState: { session?: Session; stopping?: Promise<void>; generation: number } = {
  generation: 0,
};

/**
 * The running engine, or a NotInitializedError (before init() resolved, after shutdown()).
 *
 * @example
 * ```ts
 * const { engine, config } = requireRunning();
 * ```
 */
export function requireRunning(): Running {
  const session = runtimeState.session;
  if (session?.phase !== 'running' || session.running === undefined) {
    const error = new NotInitializedError();
    Error.captureStackTrace(error, requireRunning);
    throw error;
  }
  return session.running;
}
