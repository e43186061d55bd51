import { createServer, type AddressInfo, type Server } from 'node:net';
import { StoreTimeoutError } from './store-errors.js';
import { authKey } from './store-auth.js';
import { StoreConnection } from './store-connection.js';
import { STORE_LIMITS } from './store-protocol.js';
import { StoreState } from './store-state.js';
import { countStoreServer } from './served-here.js';

/** Options of {@link StoreServer.listen}. */
export interface StoreServerOptions {
  /**
   * Interface to bind (default `127.0.0.1`): loopback for single-host jobs, the address other
   * hosts use when they connect; `0.0.0.0` only when that address is not one of this host's.
   */
  readonly host?: string;
  /** TCP port; 0 picks a free ephemeral port (read it back from `server.port`). */
  readonly port?: number;
  /** The per-job secret every client must prove it holds (it never crosses the wire). */
  readonly secret: string;
  /** How long a new client may take to authenticate before it is dropped (default 10 s). */
  readonly authTimeoutMs?: number;
}

/** Options of the in-process blocking helpers. */
export interface StoreWaitOptions {
  /** How long to wait for missing keys; 0 means do not wait. */
  readonly timeoutMs: number;
}

/**
 * The rendezvous store: a TCP key-value service (set, blocking get/wait, add, check, delete)
 * that authenticates every client with an HMAC challenge on the job secret (store-protocol.ts).
 * `kolorun` hosts one per job; the in-process helpers let the launcher read and write keys
 * without a socket.
 *
 * @example
 * ```ts
 * const server = await StoreServer.listen({ host: '127.0.0.1', port: 0, secret });
 * server.set('kolo/failure', JSON.stringify({ rank: 1 }));
 * console.log(server.address, server.port);
 * await server.close();
 * ```
 */
export class StoreServer {
  private readonly state = new StoreState();
  private readonly connections = new Set<StoreConnection>();
  private closed = false;

  private constructor(private readonly server: Server) {}

  /**
   * Binds and starts accepting clients.
   *
   * @example
   * ```ts
   * const server = await StoreServer.listen({ port: 0, secret: 'abc' });
   * ```
   */
  static async listen(options: StoreServerOptions): Promise<StoreServer> {
    if (typeof options.secret !== 'string' || options.secret.length === 0) {
      throw new TypeError('Expected a non-empty string for secret but received ' + typeof options.secret);
    }
    const key = authKey(options.secret);
    const authTimeoutMs = options.authTimeoutMs ?? STORE_LIMITS.authTimeoutMs;
    const netServer = createServer({ noDelay: true });
    const store = new StoreServer(netServer);
    netServer.on('connection', (socket) => {
      const connection = new StoreConnection(socket, store.state, key, authTimeoutMs);
      store.connections.add(connection);
      socket.on('close', () => store.connections.delete(connection));
    });
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      netServer.once('error', reject);
      netServer.listen(options.port ?? 0, host, () => {
        netServer.off('error', reject);
        resolve();
      });
    });
    // Errors after listen belong to single sockets, which handle their own.
    netServer.on('error', () => {});
    countStoreServer(1);
    return store;
  }

  /** The bound TCP port. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The bound address, e.g. `127.0.0.1` or `0.0.0.0`. */
  get address(): string {
    return (this.server.address() as AddressInfo).address;
  }

  /**
   * Stores `value` under `key` and wakes clients waiting for it.
   *
   * @example
   * ```ts
   * server.set('kolo/failure', '{"rank":1}');
   * ```
   */
  set(key: string, value: string | Uint8Array): void {
    this.state.set(
      key,
      typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value),
    );
  }

  /**
   * The value under `key`, waiting up to `timeoutMs` for it; rejects with StoreTimeoutError.
   *
   * @example
   * ```ts
   * const failure = JSON.parse((await server.get('kolo/failure', { timeoutMs: 0 })).toString());
   * ```
   */
  async get(key: string, options: StoreWaitOptions): Promise<Buffer> {
    const present = await this.state.waitFor([key], options.timeoutMs).present;
    const value = this.state.get(key);
    if (!present || value === undefined) {
      throw new StoreTimeoutError(
        `Expected key "${key}" to be set within ${options.timeoutMs} ms but it was not`,
      );
    }
    return value;
  }

  /**
   * Adds `delta` to the integer counter at `key` (missing counts as 0) and returns the sum.
   *
   * @example
   * ```ts
   * if (server.add('kolo/failure/claims', 1n) === 1n) server.set('kolo/failure', record);
   * ```
   */
  add(key: string, delta: number | bigint): bigint {
    return this.state.add(key, BigInt(delta));
  }

  /**
   * Resolves when every key exists; rejects with StoreTimeoutError after `timeoutMs`.
   *
   * @example
   * ```ts
   * await server.wait(['kolo/launcher/finished/1'], { timeoutMs: 5000 });
   * ```
   */
  async wait(keys: readonly string[], options: StoreWaitOptions): Promise<void> {
    if (!(await this.state.waitFor(keys, options.timeoutMs).present)) {
      const missing = keys.filter((k) => !this.state.has(k));
      throw new StoreTimeoutError(
        `Expected keys ${JSON.stringify(missing)} to be set within ${
          options.timeoutMs
        } ms but they were not`,
      );
    }
  }

  /**
   * Stops accepting clients, drops connected ones and releases every waiter.
   *
   * @example
   * ```ts
   * await server.close();
   * ```
   */
  async close(): Promise<void> {
    if (!this.closed) countStoreServer(-1);
    this.closed = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.connections) connection.destroy();
    this.connections.clear();
    this.state.cancelAll();
    await closed;
  }
}
