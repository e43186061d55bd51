import { rm } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { CommunicationError } from '../errors/communication-error.js';

/**
 * Starts what the configuration asks this process to provide before the engine starts — the
 * TCP store torchrun's rank 0 hosts (loaded lazily, so other modes never import it) — and
 * returns a function that releases it and removes a temporary store directory.
 *
 * @example
 * ```ts
 * const release = await provideStore(config);
 * try { await binding.startEngine(config.engine); } catch (e) { await release(); throw e; }
 * ```
 */
export async function provideStore(config: ResolvedConfig): Promise<() => Promise<void>> {
  let close = async (): Promise<void> => {};
  if (config.hostStore !== undefined) {
    const { StoreServer } = await import('../rendezvous/index.js');
    const { host, port } = config.hostStore;
    const server = await StoreServer.listen(config.hostStore).catch((cause: unknown) => {
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new CommunicationError(
        `Rank 0 could not host the rendezvous store on ${host}:${port} (${why}). ` +
          'Export KOLO_STORE_PORT with a free port on every node.',
        { rank: config.engine.rank, opName: 'init', cause },
      );
    });
    close = () => server.close();
  }
  const tempDir = config.ownedTempDir;
  return async () => {
    await close();
    if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
  };
}
