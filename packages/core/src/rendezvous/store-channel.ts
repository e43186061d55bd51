import type { Socket } from 'node:net';
import { FrameWriter, PayloadReader } from './store-codec.js';
import {
  StoreConnectionError,
  StoreProtocolError,
  StoreTimeoutError,
  StoreUnauthorizedError,
} from './store-errors.js';
import { FrameDecoder } from './store-frame-decoder.js';
import { STORE_LIMITS, StoreStatus } from './store-protocol.js';

interface Pending {
  readonly onResponse: (status: number, reader: PayloadReader) => void;
  readonly onClose: (error: Error) => void;
}

/**
 * One client connection: sends request frames and matches responses to them in order (the
 * server answers each connection in order). The socket is unref'd while nothing is pending, so
 * an idle client does not keep the process alive.
 *
 * @example
 * ```ts
 * const channel = new StoreChannel(socket, '127.0.0.1:29500');
 * const n = await channel.request(frame, 'ADD', (r) => r.i64('the new value'));
 * ```
 */
export class StoreChannel {
  private readonly decoder = new FrameDecoder(STORE_LIMITS.maxPayloadBytes);
  private readonly pending: Pending[] = [];
  private closedError: Error | undefined;

  constructor(private readonly socket: Socket, readonly where: string) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.onClose(error));
    socket.on('close', () => this.onClose(undefined));
    socket.unref();
  }

  /**
   * Sends `frame`; resolves with `parse` of an OK response. TIMEOUT rejects with StoreTimeoutError
   * (`timeoutMessage`), BAD_REQUEST with StoreProtocolError, UNAUTHORIZED with StoreUnauthorizedError.
   */
  request<T>(
    frame: FrameWriter,
    op: string,
    parse: (r: PayloadReader) => T,
    timeoutMessage?: string,
  ): Promise<T> {
    return this.exchange(frame, (status, r) => {
      if (status === StoreStatus.Ok) {
        const value = parse(r);
        r.end(`the ${op} response`);
        return value;
      }
      if (status === StoreStatus.Timeout && timeoutMessage !== undefined) {
        throw new StoreTimeoutError(timeoutMessage);
      }
      if (status === StoreStatus.BadRequest) {
        throw new StoreProtocolError(`The store at ${this.where} rejected ${op}: ${this.message(r)}`);
      }
      if (status === StoreStatus.Unauthorized) {
        throw new StoreUnauthorizedError(
          `The store at ${this.where} refused this client: ${this.message(r)}`,
        );
      }
      throw new StoreProtocolError(`Expected status OK for ${op} but received status ${status}`);
    });
  }

  /**
   * Sends `frame` (none: only waits, e.g. for the server's challenge) and resolves with `handle`
   * of the next frame the server sends; what `handle` throws rejects. A StoreProtocolError from
   * `handle` also drops the connection, which is then out of sync (after BAD_REQUEST the server
   * closes it itself).
   */
  exchange<T>(
    frame: FrameWriter | undefined,
    handle: (status: number, r: PayloadReader) => T,
  ): Promise<T> {
    if (this.closedError !== undefined) return Promise.reject(this.closedError);
    return new Promise<T>((resolve, reject) => {
      const onResponse = (status: number, r: PayloadReader): void => {
        try {
          resolve(handle(status, r));
        } catch (error) {
          reject(error as Error);
          if (StoreProtocolError.isInstance(error) && status !== StoreStatus.BadRequest) throw error;
        }
      };
      this.pending.push({ onResponse, onClose: reject });
      this.socket.ref();
      if (frame !== undefined) this.socket.write(frame.finish());
    });
  }

  /** The text of an UNAUTHORIZED or BAD_REQUEST response. */
  message(r: PayloadReader): string {
    return r.str('the message', STORE_LIMITS.maxPayloadBytes);
  }

  /** Ends the connection; pending and later requests reject with StoreConnectionError. */
  async close(): Promise<void> {
    if (this.socket.destroyed) return;
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.closedError ??= new StoreConnectionError(
      `Expected an open connection to the store at ${this.where} but close() was called; connect again`,
    );
    // Keep the process alive until the close completes (an idle socket is unref'd), so awaiting
    // close() with nothing else pending cannot end the process mid-await.
    this.socket.ref();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
    await closed;
  }

  /** Drops the connection at once. */
  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.decoder.push(chunk);
    try {
      for (let p = this.decoder.next(); p !== undefined; p = this.decoder.next()) {
        const pending = this.pending.shift();
        if (pending === undefined)
          throw new StoreProtocolError(
            'Expected no response but received one; the server is out of sync',
          );
        if (this.pending.length === 0) this.socket.unref();
        const reader = new PayloadReader(p);
        let status: number;
        try {
          status = reader.u8('the status');
        } catch (error) {
          pending.onClose(error as Error);
          throw error;
        }
        pending.onResponse(status, reader);
      }
    } catch (error) {
      this.onClose(error as Error);
      this.socket.destroy();
    }
  }

  private onClose(cause: Error | undefined): void {
    this.closedError ??= new StoreConnectionError(
      `Expected the store at ${this.where} to stay connected but the connection closed${
        cause ? ` (${cause.message})` : ''
      }; check that kolorun is still running`,
      { cause },
    );
    for (const pending of this.pending.splice(0)) pending.onClose(this.closedError);
  }
}
