// Frame generators of the store fuzz test (store-fuzz.test.ts): a seeded PRNG, well-formed
// requests (on a shared key pool, or on private keys with the exact answers a correct store
// gives), and the mutations that break them.
import { FrameWriter } from '../../src/rendezvous/store-codec.js';
import { STORE_LIMITS, StoreOp, StoreStatus } from '../../src/rendezvous/store-protocol.js';

/** mulberry32: small, fast, seedable. */
export function prng(seed: number): { next(): number; int(n: number): number; bytes(n: number): Buffer; pick<T>(xs: readonly T[]): T } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(256))),
    pick: (xs) => xs[int(xs.length)] as never,
  };
}
export type Rng = ReturnType<typeof prng>;

/** A request frame and, for model-checked sessions, the exact response payload expected. */
export interface Planned {
  readonly frame: Buffer;
  readonly expect?: Buffer;
}

const okFrame = (): FrameWriter => new FrameWriter().u8(StoreStatus.Ok);
const payloadOf = (w: FrameWriter): Buffer => w.finish().subarray(4);

/** A well-formed request on the shared key pool (no model: other sessions touch the same keys). */
export function poolRequest(rng: Rng): Buffer {
  const key = `pool/${rng.int(64)}`;
  switch (rng.int(6)) {
    case 0:
      return new FrameWriter().u8(StoreOp.Set).str(key).bytes(rng.bytes(rng.int(64))).finish();
    case 1:
      return new FrameWriter().u8(StoreOp.Get).str(key).u32(rng.int(3) * 5).finish();
    case 2:
      return new FrameWriter().u8(StoreOp.Add).str(`pool/n${rng.int(8)}`).i64(BigInt(rng.int(100) - 50)).finish();
    case 3: {
      const w = new FrameWriter().u8(StoreOp.Check).u32(2).str(key).str(`pool/${rng.int(64)}`);
      return w.finish();
    }
    case 4:
      return new FrameWriter().u8(StoreOp.Wait).u32(1).str(key).u32(rng.int(2) * 5).finish();
    default:
      return new FrameWriter().u8(StoreOp.Delete).str(key).finish();
  }
}

/** Well-formed requests on keys only this session uses, with the response a correct store gives. */
export function modelSession(rng: Rng, id: number, count: number): Planned[] {
  const model = new Map<string, Buffer>();
  const planned: Planned[] = [];
  const key = (): string => `m${id}/v${rng.int(4)}`;
  for (let i = 0; i < count; i++) {
    const k = key();
    const op = rng.int(6);
    if (op === 0) {
      const value = rng.bytes(rng.int(48));
      model.set(k, value);
      planned.push({ frame: new FrameWriter().u8(StoreOp.Set).str(k).bytes(value).finish(), expect: payloadOf(okFrame()) });
    } else if (op === 1) {
      const v = model.get(k);
      const expected = v === undefined ? new FrameWriter().u8(StoreStatus.Timeout) : okFrame().bytes(v);
      planned.push({ frame: new FrameWriter().u8(StoreOp.Get).str(k).u32(0).finish(), expect: payloadOf(expected) });
    } else if (op === 2) {
      const c = `m${id}/c`;
      const delta = BigInt(rng.int(1000) - 500);
      const sum = BigInt(model.get(c)?.toString() ?? '0') + delta;
      model.set(c, Buffer.from(sum.toString()));
      planned.push({ frame: new FrameWriter().u8(StoreOp.Add).str(c).i64(delta).finish(), expect: payloadOf(okFrame().i64(sum)) });
    } else if (op === 3 || op === 4) {
      const keys = [k, key()];
      const all = keys.every((x) => model.has(x));
      const w = new FrameWriter().u8(op === 3 ? StoreOp.Check : StoreOp.Wait).u32(keys.length);
      for (const x of keys) w.str(x);
      if (op === 4) w.u32(0);
      const expected = op === 3 ? okFrame().u8(all ? 1 : 0) : all ? okFrame() : new FrameWriter().u8(StoreStatus.Timeout);
      planned.push({ frame: w.finish(), expect: payloadOf(expected) });
    } else {
      const existed = model.delete(k);
      planned.push({ frame: new FrameWriter().u8(StoreOp.Delete).str(k).finish(), expect: payloadOf(okFrame().u8(existed ? 1 : 0)) });
    }
  }
  // Leave nothing behind, so the store's size measures leaks rather than this session.
  for (const k of [...model.keys()]) {
    planned.push({ frame: new FrameWriter().u8(StoreOp.Delete).str(k).finish(), expect: payloadOf(okFrame().u8(1)) });
  }
  return planned;
}

/** One of many ways to break (or not quite break) a frame. */
export function mutate(rng: Rng, frame: Buffer): Buffer {
  const f = Buffer.from(frame);
  switch (rng.int(10)) {
    case 0: // flip bits
      for (let i = 1 + rng.int(4); i > 0; i--) {
        const at = rng.int(f.length);
        f[at] = (f[at] as number) ^ (1 << rng.int(8));
      }
      return f;
    case 1: // a random byte anywhere
      f[rng.int(f.length)] = rng.int(256);
      return f;
    case 2: // truncated
      return f.subarray(0, rng.int(f.length));
    case 3: { // trailing garbage inside the frame (the header counts it)
      const g = Buffer.concat([f, rng.bytes(1 + rng.int(16))]);
      g.writeUInt32LE(g.length - 4, 0);
      return g;
    }
    case 4: { // a lying length header
      const lie = rng.pick([0, 1, f.length - 5, f.length - 3, STORE_LIMITS.maxPreAuthPayloadBytes + 1, STORE_LIMITS.maxPayloadBytes + 1, 0xffffffff, rng.int(2 ** 32)]);
      f.writeUInt32LE(Math.max(0, lie) >>> 0, 0);
      return f;
    }
    case 5: // a garbage op
      if (f.length > 4) f[4] = rng.pick([0, 0x01, 0x08, 0x7f, 0xff, rng.int(256)]);
      return f;
    case 6: // a lying inner length (key, value or key count)
      if (f.length >= 9) f.writeUInt32LE(rng.pick([0xffffffff, STORE_LIMITS.maxKeyBytes + 1, rng.int(2 ** 32), 0]), 5);
      return f;
    case 7: // a whole random frame
      return new FrameWriter().raw(rng.bytes(rng.int(300))).finish();
    case 8: // raw noise, no framing at all
      return rng.bytes(1 + rng.int(64));
    default: { // an oversized frame: header only, the server must refuse it before any payload
      const header = Buffer.alloc(4);
      header.writeUInt32LE(STORE_LIMITS.maxPayloadBytes + 1 + rng.int(2 ** 20));
      return header;
    }
  }
}
