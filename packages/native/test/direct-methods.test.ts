// The enqueue methods every step calls are functions of each engine's own, which reach it through
// their data pointer instead of unwrapping `this` (a private-symbol lookup that cost 4% of a
// blocking 4 KiB allreduce), so they keep working when called apart from the object, and throw
// a clear error once the engine itself was garbage-collected.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NativeEngine, NativeSettle } from '../lib/index.js';
import { request, requestTypes, run, start } from './one-rank-engine.js';

const direct = ['enqueuePacked', 'enqueueSyncPacked', 'enqueueRepeat', 'enqueueSyncRepeat'] as const;
const allreduce = requestTypes['allreduce']!;

describe("the engine's own enqueue functions", () => {
  let engine: NativeEngine;
  beforeAll(async () => {
    engine = await start('direct-test', { sharedMemory: true });
  });
  afterAll(() => engine.shutdown());

  it('shadow the prototype methods as own, non-enumerable properties', () => {
    const proto = Object.getPrototypeOf(engine) as Record<string, unknown>;
    for (const name of direct) {
      const own = Object.getOwnPropertyDescriptor(engine, name);
      expect(own?.value, name).toBeTypeOf('function');
      expect(own?.value, name).not.toBe(proto[name]);
      expect(own?.enumerable, name).toBe(false);
      expect(own?.writable, name).toBe(true);
    }
    expect(Object.keys(engine)).toEqual([]);
  });

  it('queue on their engine when called apart from it', async () => {
    const x = new Float32Array([1.5, -2]);
    const out = new Float32Array(2);
    const calls = [{ requests: [request({ type: allreduce, name: 'direct.x', shape: [2], postscale: 3, input: x, output: out })], grouped: false }];
    const kept = await run(engine, calls, { keep: true });
    expect([...out]).toEqual([4.5, -6]);
    // A repeat of the kept batch through the function alone, with no `this`.
    const enqueueRepeat = engine.enqueueRepeat!;
    x.set([2, 4]);
    const alone = { enqueueRepeat: (token: number, settle: NativeSettle) => enqueueRepeat.call(undefined, token, settle) };
    const again = await run(alone as unknown as NativeEngine, calls, { repeat: kept.token! });
    expect(again.outcomes).toEqual([[{}]]);
    expect([...out]).toEqual([6, 12]);
    // A blocking call kept, then repeated the same way.
    const token = engine.keepNextBatch!();
    expect(engine.enqueueSync(calls[0]!.requests, false)).toEqual([{}]);
    const enqueueSyncRepeat = engine.enqueueSyncRepeat!;
    x.set([-1, 0.5]);
    expect(enqueueSyncRepeat.call(undefined, token)).toEqual([{}]);
    expect([...out]).toEqual([-3, 1.5]);
    expect(enqueueSyncRepeat.call(undefined, token + 1000)).toBeUndefined();
  });
});

describe("an engine's own function after the engine was collected", () => {
  it('throws a clear error instead of reaching freed memory', () => {
    const lib = pathToFileURL(join(__dirname, '..', 'dist', 'index.js')).href;
    const config = JSON.stringify({
      rank: 0, size: 1, localRank: 0, localSize: 1, crossRank: 0, crossSize: 1,
      store: { kind: 'file', path: mkdtempSync(join(tmpdir(), 'kolo-direct-')) },
      storePrefix: 'direct-gc', hostname: '127.0.0.1', iface: '', cycleTimeMs: 1, fusionThresholdBytes: 1 << 20, timeoutMs: 10_000,
    });
    const script = `
      const { loadNative } = await import(${JSON.stringify(lib)});
      const native = loadNative();
      let engine = await native.startEngine(${config});
      const fn = engine.enqueueSyncRepeat;
      let collected = false;
      const registry = new FinalizationRegistry(() => { collected = true; });
      registry.register(engine, 'engine');
      await engine.shutdown();
      engine = undefined;
      for (let i = 0; i < 200 && !collected; i++) {
        globalThis.gc();
        await new Promise((r) => setImmediate(r));
      }
      for (let i = 0; i < 20; i++) { globalThis.gc(); await new Promise((r) => setImmediate(r)); }
      let message = 'no error';
      try { fn(1); } catch (e) { message = e.message; }
      console.log(JSON.stringify({ collected, message }));
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      collected: true,
      message: 'This Kolo engine was garbage-collected; call it through the engine object.',
    });
  });
});
