import { StoreChannel } from './store-channel.js';
import { FrameWriter } from './store-codec.js';
import { openStoreSocket } from './store-connect.js';
import { authenticateClient } from './store-handshake.js';
import { STORE_LIMITS, StoreOp } from './store-protocol.js';
import { checkKey, checkKeys, checkTimeoutMs, checkValue } from './store-validate.js';

/** Options of {@link StoreClient.connect}; every field's default lives in {@link STORE_CLIENT_DEFAULTS}. */
export interface StoreClientOptions {
  /** Store host, usually `KOLO_STORE_ADDR`. */
  readonly host: string;
  /** Store port, usually `KOLO_STORE_PORT`. */
  readonly port: number;
  /** The job secret, usually `KOLO_JOB_SECRET`. */
  readonly secret: string;
  /** How long to keep retrying while the server is not listening yet (default 30 s). */
  readonly timeoutMs?: number;
}

/** Options of the blocking calls {@link StoreClient.get} and {@link StoreClient.wait}. */
export interface StoreBlockingOptions {
  /** How long the server waits for missing keys (default 300 s, like torch's TCPStore); 0: no wait. */
  readonly timeoutMs?: number;
}

/**
 * Defaults of the store client, in one place.
 *
 * @example
 * ```ts
 * await store.get('k', { timeoutMs: STORE_CLIENT_DEFAULTS.blockingTimeoutMs });
 * ```
 */
export const STORE_CLIENT_DEFAULTS = {
  /** How long connecting (and authenticating) may take. */
  connectTimeoutMs: 30_000,
  /** How long a blocking get or wait waits for its keys when the caller gives no timeout. */
  blockingTimeoutMs: 300_000,
} as const;

/**
 * A client of the rendezvous store. Requests may be issued concurrently; the server answers them
 * in order. An idle client does not keep the process alive.
 *
 * @example
 * ```ts
 * const env = process.env;
 * const store = await StoreClient.connect({ host: env.KOLO_STORE_ADDR!, port: Number(env.KOLO_STORE_PORT), secret: env.KOLO_JOB_SECRET! });
 * await store.set('hello', 'world');
 * console.log((await store.get('hello', { timeoutMs: 1000 })).toString());
 * await store.close();
 * ```
 */
export class StoreClient {
  private constructor(private readonly channel: StoreChannel) {}

  /**
   * Connects (retrying while the server is not up yet, for at most `timeoutMs`) and runs the
   * mutual HMAC handshake: the secret never crosses the wire, and a store that does not hold it
   * is refused. Rejects with StoreTimeoutError, StoreUnauthorizedError (the secrets differ),
   * StoreProtocolError or StoreConnectionError.
   *
   * @example
   * ```ts
   * const store = await StoreClient.connect({ host: '127.0.0.1', port: 29500, secret, timeoutMs: 5000 });
   * ```
   */
  static async connect(options: StoreClientOptions): Promise<StoreClient> {
    if (typeof options.host !== 'string' || options.host === '') {
      throw new TypeError(
        `Expected a host name for host but received ${JSON.stringify(options.host)}`,
      );
    }
    if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) {
      throw new RangeError(
        `Expected a port from 1 to 65535 for port but received ${String(options.port)}`,
      );
    }
    if (typeof options.secret !== 'string' || options.secret === '') {
      throw new TypeError(
        'Expected a non-empty string for secret but received ' + JSON.stringify(options.secret),
      );
    }
    const timeoutMs = options.timeoutMs ?? STORE_CLIENT_DEFAULTS.connectTimeoutMs;
    checkTimeoutMs(timeoutMs);
    const socket = await openStoreSocket(options.host, options.port, timeoutMs);
    const channel = new StoreChannel(socket, `${options.host}:${options.port}`);
    try {
      await authenticateClient(channel, options.secret, Math.max(timeoutMs, 1000));
    } catch (error) {
      channel.destroy();
      throw error;
    }
    return new StoreClient(channel);
  }

  /**
   * Stores `value` (a string is stored as UTF-8) under `key` and wakes its waiters.
   *
   * @example
   * ```ts
   * await store.set('addr/0', '10.0.0.1:4000');
   * ```
   */
  set(key: string, value: string | Uint8Array): Promise<void> {
    checkKey(key);
    const bytes = checkValue(typeof value === 'string' ? Buffer.from(value, 'utf8') : value);
    return this.channel.request(
      new FrameWriter().u8(StoreOp.Set).str(key).bytes(bytes),
      'SET',
      () => undefined,
    );
  }

  /**
   * The value under `key`, blocking until it is set; rejects with StoreTimeoutError.
   *
   * @example
   * ```ts
   * const addr = (await store.get('addr/1', { timeoutMs: 30_000 })).toString();
   * ```
   */
  get(key: string, options: StoreBlockingOptions = {}): Promise<Buffer> {
    checkKey(key);
    const timeoutMs = options.timeoutMs ?? STORE_CLIENT_DEFAULTS.blockingTimeoutMs;
    checkTimeoutMs(timeoutMs);
    const frame = new FrameWriter().u8(StoreOp.Get).str(key).u32(timeoutMs);
    return this.channel.request(
      frame,
      'GET',
      (r) => Buffer.from(r.bytes('a value', STORE_LIMITS.maxValueBytes)),
      `Expected key "${key}" to be set within ${timeoutMs} ms but it was not; check that the process that sets it is alive, or raise timeoutMs`,
    );
  }

  /**
   * Adds `delta` to the integer counter at `key` (missing counts as 0); resolves to the new value.
   *
   * @example
   * ```ts
   * const arrived = await store.add('barrier/0', 1); // 1n for the first caller
   * ```
   */
  add(key: string, delta: number | bigint): Promise<bigint> {
    checkKey(key);
    if (typeof delta === 'number' && !Number.isSafeInteger(delta)) {
      throw new RangeError(`Expected an integer for delta but received ${delta}`);
    }
    const frame = new FrameWriter().u8(StoreOp.Add).str(key).i64(BigInt(delta));
    return this.channel.request(frame, 'ADD', (r) => r.i64('the new value'));
  }

  /**
   * True when every key exists right now (does not block).
   *
   * @example
   * ```ts
   * if (await store.check(['kolo/failure'])) console.error('a rank failed');
   * ```
   */
  check(keys: readonly string[]): Promise<boolean> {
    checkKeys(keys);
    const frame = new FrameWriter().u8(StoreOp.Check).u32(keys.length);
    for (const key of keys) frame.str(key);
    return this.channel.request(frame, 'CHECK', (r) => r.u8('allPresent') === 1);
  }

  /**
   * Resolves when every key exists; rejects with StoreTimeoutError after `timeoutMs`.
   *
   * @example
   * ```ts
   * await store.wait(['addr/0', 'addr/1'], { timeoutMs: 60_000 });
   * ```
   */
  wait(keys: readonly string[], options: StoreBlockingOptions = {}): Promise<void> {
    checkKeys(keys);
    const timeoutMs = options.timeoutMs ?? STORE_CLIENT_DEFAULTS.blockingTimeoutMs;
    checkTimeoutMs(timeoutMs);
    const frame = new FrameWriter().u8(StoreOp.Wait).u32(keys.length);
    for (const key of keys) frame.str(key);
    frame.u32(timeoutMs);
    return this.channel.request(
      frame,
      'WAIT',
      () => undefined,
      `Expected keys ${JSON.stringify(
        keys,
      )} to be set within ${timeoutMs} ms but they were not; check that the processes that set them are alive, or raise timeoutMs`,
    );
  }

  /**
   * Removes `key`; resolves true when it existed.
   *
   * @example
   * ```ts
   * await store.delete('addr/0'); // true
   * ```
   */
  delete(key: string): Promise<boolean> {
    checkKey(key);
    return this.channel.request(
      new FrameWriter().u8(StoreOp.Delete).str(key),
      'DELETE',
      (r) => r.u8('existed') === 1,
    );
  }

  /**
   * Closes the connection; requests still pending reject with StoreConnectionError.
   *
   * @example
   * ```ts
   * await store.close();
   * ```
   */
  close(): Promise<void> {
    return this.channel.close();
  }
}
