// What an enqueueBatch keeps alive: its settle function and arrays while a call is in flight
// past the enqueueBatch call (the engine thread finishes it), nothing once every call settled,
// and nothing at all when the JS thread ran the cycle and settled every call before returning.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NativeCall, NativeEngine, NativeSettle } from '../lib/index.js';
import { request, requestTypes, start } from './one-rank-engine.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** An allreduce of `input` (three 1.5s, scaled by 2) into `output`, as one call. */
function call(name: string, input: Float32Array, output: Float32Array): NativeCall {
  return { requests: [request({ type: requestTypes['allreduce']!, name, shape: [3], postscale: 2, input, output })], grouped: false };
}

/**
 * Submits one call whose input and settle function only the batch holds, then collects
 * garbage at once. Resolves with the output, whether the call settled before enqueueBatch
 * returned, and weak references to the input and settle function.
 */
function submit(engine: NativeEngine, name: string): Promise<{ output: Float32Array; atOnce: boolean; input: WeakRef<Float32Array>; settle: WeakRef<NativeSettle> }> {
  return new Promise((resolve) => {
    const output = new Float32Array(3);
    let returned = false;
    let weak: { input: WeakRef<Float32Array>; settle: WeakRef<NativeSettle> } | undefined;
    const settled = { done: false, atOnce: false };
    const finish = (): void => {
      if (settled.done && weak !== undefined) resolve({ output, atOnce: settled.atOnce, ...weak });
    };
    (() => {
      const input = new Float32Array([1.5, 1.5, 1.5]);
      const settle: NativeSettle = (_indices, outcomes, done, count) => {
        expect([count, outcomes[0] ?? done]).toEqual([1, [{}]]);
        Object.assign(settled, { done: true, atOnce: !returned });
        setImmediate(finish);
      };
      weak = { input: new WeakRef(input), settle: new WeakRef(settle) };
      engine.enqueueBatch([call(name, input, output)], settle);
    })();
    returned = true;
    gc();
    finish();
  });
}

/** Collects garbage until `ref` is empty (a WeakRef holds its target to the end of the turn). */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5 && ref.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  return ref.deref() === undefined;
}

describe('enqueueBatch pins', () => {
  let background: NativeEngine;
  let inline: NativeEngine;
  beforeAll(async () => {
    // Gloo at one rank: the JS thread never runs the cycle, the engine thread does.
    background = await start('pins-background');
    // Shared memory at one rank: no peer to wait for, so the JS thread runs the cycle itself.
    inline = await start('pins-inline', { sharedMemory: true });
  });
  afterAll(async () => {
    await background.shutdown();
    await inline.shutdown();
  });

  it('keeps the settle function and input of a call the engine thread finishes, then lets them go', async () => {
    for (let i = 0; i < 20; i++) {
      const { output, atOnce, input, settle } = await submit(background, `pins.bg.${i}`);
      expect([...output, atOnce]).toEqual([3, 3, 3, false]);
      expect([await collected(input), await collected(settle)]).toEqual([true, true]);
    }
  });

  it('settles a call whose cycle the JS thread ran before returning, holding nothing after', async () => {
    for (let i = 0; i < 20; i++) {
      const { output, atOnce, input, settle } = await submit(inline, `pins.inline.${i}`);
      expect([...output, atOnce]).toEqual([3, 3, 3, true]);
      expect([await collected(input), await collected(settle)]).toEqual([true, true]);
    }
  });
});
