import { runtimeState } from './runtime-state.js';

/**
 * Stops the engine (a coordinated shutdown: pending requests on every rank fail with
 * ShutDownError), closes a store this process hosted and removes its temporary directory.
 * Idempotent, and safe in `finally`: it never rejects, because an engine whose generation already
 * failed is already stopped and that failure was reported by the request that saw it.
 *
 * @example
 * ```ts
 * try { await train(); } finally { await shutdown(); }
 * ```
 */
export function shutdown(): Promise<void> {
  if (runtimeState.stopping !== undefined) return runtimeState.stopping;
  const session = runtimeState.session;
  if (session === undefined) return Promise.resolve();
  session.phase = 'stopping';
  const stop = async (): Promise<void> => {
    try {
      await session.ready.catch(() => undefined);
      await session.running?.engine.shutdown().catch(() => undefined);
      await session.release?.().catch(() => undefined);
    } finally {
      if (runtimeState.session === session) runtimeState.session = undefined;
      runtimeState.stopping = undefined;
    }
  };
  runtimeState.stopping = stop();
  return runtimeState.stopping;
}

/**
 * True between a resolved `init()` and the next `shutdown()`.
 *
 * @example
 * ```ts
 * if (!isInitialized()) await init();
 * ```
 */
export function isInitialized(): boolean {
  return runtimeState.session?.phase === 'running';
}
