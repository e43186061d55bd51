import { StoreProtocolError } from './store-errors.js';

/**
 * Builds one frame: call the typed appenders in order, then {@link FrameWriter.finish}.
 *
 * @example
 * ```ts
 * socket.write(new FrameWriter().u8(StoreOp.Get).str('key').u32(1000).finish());
 * ```
 */
export class FrameWriter {
  private readonly parts: Buffer[] = [];
  private length = 0;

  u8(value: number): this {
    return this.push(Buffer.from([value]));
  }

  u32(value: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32LE(value);
    return this.push(b);
  }

  i64(value: bigint): this {
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64LE(value);
    return this.push(b);
  }

  bytes(value: Uint8Array): this {
    this.u32(value.byteLength);
    return this.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }

  str(value: string): this {
    return this.bytes(Buffer.from(value, 'utf8'));
  }

  /** Bytes without a length prefix (fixed-size fields such as nonces and proofs). */
  raw(value: Uint8Array): this {
    return this.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }

  /** The frame: `u32 payloadLength` followed by everything appended. */
  finish(): Buffer {
    const header = Buffer.allocUnsafe(4);
    header.writeUInt32LE(this.length);
    return Buffer.concat([header, ...this.parts], 4 + this.length);
  }

  private push(part: Buffer): this {
    this.parts.push(part);
    this.length += part.byteLength;
    return this;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads one payload front to back; every read checks bounds and throws StoreProtocolError.
 *
 * @example
 * ```ts
 * const r = new PayloadReader(payload);
 * const status = r.u8('the status');
 * ```
 */
export class PayloadReader {
  private offset = 0;

  constructor(private readonly payload: Buffer) {}

  u8(what: string): number {
    return this.take(1, what).readUInt8(0);
  }

  u32(what: string): number {
    return this.take(4, what).readUInt32LE(0);
  }

  i64(what: string): bigint {
    return this.take(8, what).readBigInt64LE(0);
  }

  /** Exactly `count` bytes without a length prefix; a view into the payload. */
  fixed(count: number, what: string): Buffer {
    return this.take(count, what);
  }

  /** A length-prefixed byte string of at most `maxBytes`; a view into the payload. */
  bytes(what: string, maxBytes: number): Buffer {
    const length = this.u32(`the length of ${what}`);
    if (length > maxBytes) {
      throw new StoreProtocolError(
        `Expected ${what} of at most ${maxBytes} bytes but received ${length} bytes`,
      );
    }
    return this.take(length, what);
  }

  /** A length-prefixed UTF-8 string of at most `maxBytes`. */
  str(what: string, maxBytes: number): string {
    const raw = this.bytes(what, maxBytes);
    try {
      return utf8.decode(raw);
    } catch {
      throw new StoreProtocolError(`Expected UTF-8 text for ${what} but received invalid bytes`);
    }
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.payload.byteLength - this.offset;
  }

  /** Throws unless the whole payload was consumed. */
  end(what: string): void {
    if (this.remaining !== 0) {
      throw new StoreProtocolError(
        `Expected ${what} to end after ${this.offset} bytes but received ${this.remaining} more`,
      );
    }
  }

  private take(count: number, what: string): Buffer {
    if (this.remaining < count) {
      throw new StoreProtocolError(
        `Expected ${count} bytes for ${what} but received ${this.remaining}`,
      );
    }
    const view = this.payload.subarray(this.offset, this.offset + count);
    this.offset += count;
    return view;
  }
}
