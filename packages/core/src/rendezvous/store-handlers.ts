import { FrameWriter, type PayloadReader } from './store-codec.js';
import { StoreProtocolError } from './store-errors.js';
import { STORE_LIMITS, StoreOp, StoreStatus } from './store-protocol.js';
import type { StoreState } from './store-state.js';

/** Waits until every key exists or `timeoutMs` passes; resolves false on timeout or disconnect. */
export type WaitFn = (keys: readonly string[], timeoutMs: number) => Promise<boolean>;

const ok = (): FrameWriter => new FrameWriter().u8(StoreStatus.Ok);
const timeout = (): Buffer => new FrameWriter().u8(StoreStatus.Timeout).finish();

function readKeys(r: PayloadReader): string[] {
  const n = r.u32('the key count');
  if (n * 4 > r.remaining) {
    throw new StoreProtocolError(`Expected ${n} keys but received only ${r.remaining} bytes`);
  }
  return Array.from({ length: n }, () => r.str('a key', STORE_LIMITS.maxKeyBytes));
}

/**
 * Executes one authenticated request (SET … DELETE) against `state` and returns the response
 * frame. Throws StoreProtocolError for a malformed request; the caller answers BAD_REQUEST.
 *
 * @example
 * ```ts
 * socket.write(await handleRequest(new PayloadReader(payload), state, wait));
 * ```
 */
export async function handleRequest(
  r: PayloadReader,
  state: StoreState,
  wait: WaitFn,
): Promise<Buffer> {
  const op = r.u8('the op');
  const key = (): string => r.str('a key', STORE_LIMITS.maxKeyBytes);
  switch (op) {
    case StoreOp.Set: {
      const k = key();
      const value = Buffer.from(r.bytes('a value', STORE_LIMITS.maxValueBytes));
      r.end('the SET frame');
      state.set(k, value);
      return ok().finish();
    }
    case StoreOp.Get: {
      const k = key();
      const timeoutMs = r.u32('timeoutMs');
      r.end('the GET frame');
      if (!(await wait([k], timeoutMs))) return timeout();
      const value = state.get(k);
      return value === undefined ? timeout() : ok().bytes(value).finish();
    }
    case StoreOp.Add: {
      const k = key();
      const delta = r.i64('delta');
      r.end('the ADD frame');
      return ok().i64(state.add(k, delta)).finish();
    }
    case StoreOp.Check: {
      const keys = readKeys(r);
      r.end('the CHECK frame');
      return ok()
        .u8(keys.every((k) => state.has(k)) ? 1 : 0)
        .finish();
    }
    case StoreOp.Wait: {
      const keys = readKeys(r);
      const timeoutMs = r.u32('timeoutMs');
      r.end('the WAIT frame');
      return (await wait(keys, timeoutMs)) ? ok().finish() : timeout();
    }
    case StoreOp.Delete: {
      const k = key();
      r.end('the DELETE frame');
      return ok()
        .u8(state.delete(k) ? 1 : 0)
        .finish();
    }
    default:
      throw new StoreProtocolError(
        `Expected an op from 0x02 to 0x07 but received 0x${op
          .toString(16)
          .padStart(2, '0')}; the client speaks another protocol version`,
      );
  }
}
