import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreConnectionError, StoreTimeoutError } from './store-errors.js';

/** Errors that mean "the server is not reachable yet": keep retrying until the deadline. */
const retryable = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

function attempt(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    // At least 50 ms, so a refusal that is on its way is not reported as a timeout.
    socket.setTimeout(Math.max(50, timeoutMs), () => {
      socket.destroy(
        Object.assign(new Error(`connect ETIMEDOUT ${host}:${port}`), {
          code: 'ETIMEDOUT',
          deadline: true,
        }),
      );
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/**
 * Opens a TCP connection to the store, retrying with backoff (50 ms doubling to 1 s) while the
 * server is not listening yet, for at most `timeoutMs` in total.
 *
 * @example
 * ```ts
 * const socket = await openStoreSocket('127.0.0.1', 29500, 30_000);
 * ```
 */
export async function openStoreSocket(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Socket> {
  const deadline = Date.now() + timeoutMs;
  let delayMs = 50;
  let lastCode = 'ETIMEDOUT';
  let lastError: unknown;
  for (;;) {
    try {
      return await attempt(host, port, deadline - Date.now());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'an error';
      // Our own deadline says nothing about the server; report what the network said before it.
      if (!(error as { deadline?: boolean }).deadline || lastError === undefined) {
        lastCode = code;
        lastError = error;
      }
      if (!retryable.has(code)) {
        throw new StoreConnectionError(
          `Expected to reach the store at ${host}:${port} but received ${code} (${
            (error as Error).message
          }); check KOLO_STORE_ADDR and KOLO_STORE_PORT`,
          { cause: error },
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new StoreTimeoutError(
          `Expected the store at ${host}:${port} to accept a connection within ${timeoutMs} ms but received ${lastCode}; check that kolorun (node 0) is running and that KOLO_STORE_ADDR/KOLO_STORE_PORT point at it`,
          { cause: lastError },
        );
      }
      await sleep(Math.min(delayMs, left));
      delayMs = Math.min(delayMs * 2, 1000);
    }
  }
}
