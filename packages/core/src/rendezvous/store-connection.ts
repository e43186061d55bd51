import type { Socket } from 'node:net';
import { authProof, newNonce, proofMatches } from './store-auth.js';
import { FrameDecoder } from './store-frame-decoder.js';
import { FrameWriter, PayloadReader } from './store-codec.js';
import { STORE_AUTH, STORE_LIMITS, StoreOp, StoreStatus } from './store-protocol.js';
import { handleRequest } from './store-handlers.js';
import type { PendingWait, StoreState } from './store-state.js';

/** Requests queued on one connection before the server stops reading from it. */
const maxQueuedRequests = 64;
/** After a fatal answer, how long a peer may take to read it before the socket is destroyed. */
const lingerMs = 2000;

const ok = (): FrameWriter => new FrameWriter().u8(StoreStatus.Ok);
/** op + client nonce + client proof. */
const authPayloadBytes = 1 + STORE_AUTH.nonceBytes + STORE_AUTH.proofBytes;

/**
 * One client connection on the server: challenges it (see store-protocol.ts), then answers its
 * requests strictly in order. A blocking GET/WAIT holds back later requests of this connection
 * only. Before AUTH succeeds it buffers at most one 4 KiB frame (plus the unread rest of one
 * socket read) and lives at most `authTimeoutMs`; after, it stops decoding and reading while 64
 * requests are queued or the peer is not reading its answers.
 */
export class StoreConnection {
  private readonly decoder = new FrameDecoder(STORE_LIMITS.maxPreAuthPayloadBytes);
  private authenticated = false;
  private closing = false;
  private queued = 0;
  private tail: Promise<void> = Promise.resolve();
  private readonly waits = new Set<PendingWait>();
  private readonly authTimer: NodeJS.Timeout;
  private readonly serverNonce = newNonce();

  /** @param key the HMAC key of the job secret ({@link authKey}). */
  constructor(
    private readonly socket: Socket,
    private readonly state: StoreState,
    private readonly key: Buffer,
    authTimeoutMs: number,
  ) {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    this.authTimer = setTimeout(() => {
      this.fail(
        StoreStatus.Unauthorized,
        `Expected an AUTH frame within ${authTimeoutMs} ms but received none; answer the store's challenge with AUTH first`,
      );
    }, authTimeoutMs);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.destroy());
    socket.write(new FrameWriter().u8(StoreStatus.Challenge).raw(this.serverNonce).finish());
  }

  /** Drops the client and releases its waiters. */
  destroy(): void {
    this.closing = true;
    clearTimeout(this.authTimer);
    for (const wait of this.waits) wait.cancel();
    this.waits.clear();
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    this.decoder.push(chunk);
    this.pump();
  }

  /** Handles buffered frames until none is complete or 64 requests wait (then reading pauses). */
  private pump(): void {
    try {
      while (!this.closing && this.queued < maxQueuedRequests) {
        const p = this.decoder.next();
        if (p === undefined) break;
        if (this.authenticated) this.enqueue(p);
        else this.authenticate(p);
      }
    } catch (error) {
      const status = this.authenticated ? StoreStatus.BadRequest : StoreStatus.Unauthorized;
      this.fail(status, (error as Error).message);
    }
  }

  private authenticate(payload: Buffer): void {
    const reader = new PayloadReader(payload);
    const op = reader.u8('the op of the first frame');
    if (op !== StoreOp.Auth) {
      this.fail(
        StoreStatus.Unauthorized,
        `Expected AUTH (0x01) as the first frame but received op 0x${op
          .toString(16)
          .padStart(2, '0')}; answer the store's challenge with AUTH first`,
      );
      return;
    }
    if (payload.byteLength !== authPayloadBytes) {
      this.fail(
        StoreStatus.Unauthorized,
        `Expected an AUTH frame of ${authPayloadBytes} bytes (op, 32-byte nonce, 32-byte proof) but received ${payload.byteLength} bytes; the client speaks another protocol version`,
      );
      return;
    }
    const clientNonce = reader.fixed(STORE_AUTH.nonceBytes, 'the client nonce');
    const proof = reader.fixed(STORE_AUTH.proofBytes, 'the client proof');
    if (!proofMatches(proof, authProof(this.key, STORE_AUTH.clientLabel, this.serverNonce))) {
      this.fail(
        StoreStatus.Unauthorized,
        "Expected a proof of this store's job secret but received one made with another secret",
      );
      return;
    }
    clearTimeout(this.authTimer);
    this.authenticated = true;
    this.decoder.maxPayloadBytes = STORE_LIMITS.maxPayloadBytes;
    const serverProof = authProof(this.key, STORE_AUTH.serverLabel, clientNonce);
    this.socket.write(ok().raw(serverProof).finish());
  }

  private enqueue(payload: Buffer): void {
    if (++this.queued >= maxQueuedRequests) this.socket.pause();
    this.tail = this.tail.then(async () => {
      if (this.closing) return;
      try {
        const response = await handleRequest(new PayloadReader(payload), this.state, (keys, ms) =>
          this.wait(keys, ms),
        );
        // A peer that does not read its answers must not make the server buffer them.
        if (!this.closing && !this.socket.write(response)) await this.drained();
      } catch (error) {
        // Malformed frames are StoreProtocolErrors; anything else is a server bug, which must
        // still only cost this client its connection.
        this.fail(StoreStatus.BadRequest, (error as Error).message);
      } finally {
        if (--this.queued < maxQueuedRequests && !this.closing) {
          this.socket.resume();
          this.pump();
        }
      }
    });
  }

  private drained(): Promise<void> {
    const socket = this.socket;
    if (socket.destroyed || !socket.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }

  private async wait(keys: readonly string[], timeoutMs: number): Promise<boolean> {
    const pending = this.state.waitFor(keys, timeoutMs);
    this.waits.add(pending);
    try {
      return await pending.present;
    } finally {
      this.waits.delete(pending);
    }
  }

  /** Sends a final BAD_REQUEST/UNAUTHORIZED with `message`, then closes the connection. */
  private fail(status: StoreStatus, message: string): void {
    if (this.closing) return;
    this.closing = true;
    clearTimeout(this.authTimer);
    for (const wait of this.waits) wait.cancel();
    this.socket.resume();
    this.socket.end(new FrameWriter().u8(status).str(message).finish());
    setTimeout(() => this.socket.destroy(), lingerMs).unref();
  }
}
