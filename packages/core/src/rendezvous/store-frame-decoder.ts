import { StoreProtocolError } from './store-errors.js';

/**
 * Splits a byte stream into frame payloads (`u32 payloadLength` + payload). The length is checked
 * against {@link FrameDecoder.maxPayloadBytes} as soon as the 4-byte header arrives, so an oversize
 * frame is refused before it is buffered. Each chunk is copied at most once.
 *
 * @example
 * ```ts
 * const decoder = new FrameDecoder(4096);
 * socket.on('data', (chunk) => {
 *   decoder.push(chunk);
 *   for (let p = decoder.next(); p !== undefined; p = decoder.next()) handle(p);
 * });
 * ```
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** @param maxPayloadBytes the largest payload accepted; may be raised later (after AUTH). */
  constructor(public maxPayloadBytes: number) {}

  /** Appends received bytes; call {@link FrameDecoder.next} until it returns undefined. */
  push(chunk: Buffer): void {
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
  }

  /** The next complete payload, or undefined. Throws StoreProtocolError on an oversize length. */
  next(): Buffer | undefined {
    if (this.buffered < 4) return undefined;
    const length = this.peekHeader();
    if (length > this.maxPayloadBytes) {
      throw new StoreProtocolError(
        `Expected a frame of at most ${this.maxPayloadBytes} bytes but received a header announcing ${length} bytes`,
      );
    }
    if (this.buffered < 4 + length) return undefined;
    return this.take(4 + length).subarray(4);
  }

  private peekHeader(): number {
    const first = this.chunks[0] as Buffer;
    if (first.byteLength >= 4) return first.readUInt32LE(0);
    return Buffer.concat(this.chunks, this.buffered).readUInt32LE(0);
  }

  private take(count: number): Buffer {
    const first = this.chunks[0] as Buffer;
    let out: Buffer;
    if (first.byteLength >= count) {
      out = first.subarray(0, count);
    } else {
      out = Buffer.allocUnsafe(count);
      let copied = 0;
      for (const chunk of this.chunks) {
        copied += chunk.copy(out, copied, 0, Math.min(chunk.byteLength, count - copied));
        if (copied === count) break;
      }
    }
    this.consume(count);
    return out;
  }

  private consume(count: number): void {
    this.buffered -= count;
    while (count > 0) {
      const first = this.chunks[0] as Buffer;
      if (first.byteLength <= count) {
        this.chunks.shift();
        count -= first.byteLength;
      } else {
        this.chunks[0] = first.subarray(count);
        count = 0;
      }
    }
  }
}
