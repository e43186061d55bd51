import { afterEach, describe, expect, it } from 'vitest';
import { allreduce, allreduceSync, groupedAllreduce, groupedAllreduceSync, shutdown } from '../../src/index.js';
import { useCleanEnv } from './clean-env.js';
import { fakeConstants } from './fake-binding.js';
import { startFake } from './start-fake.js';
import { recurringGroupPlan, recurringPlan, rememberGroupPlan, rememberPlan } from '../../src/collectives/recurring-plans.js';
import type { Plan } from '../../src/collectives/run-plan.js';

// A call that repeats the last named call of the same arrays reuses its validated request
// (src/collectives/recurring-plans.ts); every way a call can differ must still be validated.

useCleanEnv();
afterEach(() => shutdown());

describe('allreduce of the same arrays and options, call after call', () => {
  // What a training loop does: the same gradient, name and output every step, in a new literal.
  const step = (data: Float32Array, output: Float32Array, extra: object = {}) =>
    allreduce(data, { name: 'grad.w', op: 'sum', output, ...extra });

  it('sends the first call’s request again, reduced into the same output', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const output = new Float32Array(2);
    expect(await step(data, output)).toBe(output);
    expect(await step(data, output)).toBe(output);
    expect(allreduceSync(data, { name: 'grad.w', op: 'sum', output })).toBe(output);
    const [first, second, third] = binding.calls.map((c) => c.requests[0]);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first).toMatchObject({ name: 'grad.w', shape: [2], reduceOp: fakeConstants.reduceOps.sum });
    expect([...output]).toEqual([2, 4]);
  });

  it.each([
    ['another op', { op: 'max' }, { reduceOp: fakeConstants.reduceOps.max }],
    ['a postscale', { postscaleFactor: 0.5 }, { postscale: 0.5 }],
    ['a prescale', { prescaleFactor: 2 }, { prescale: 2 }],
    ['another name', { name: 'grad.b' }, { name: 'grad.b' }],
    ['a shape', { shape: [2, 1] }, { shape: [2, 1] }],
  ])('makes a new request for %s', async (_what, extra, expected) => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const output = new Float32Array(2);
    await step(data, output);
    await step(data, output, extra);
    const [first, second] = binding.calls.map((c) => c.requests[0]);
    expect(second).not.toBe(first);
    expect(second).toMatchObject(expected);
  });

  it('makes a new request for another output, and for a shape array edited between calls', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const shape = [2];
    await step(data, new Float32Array(2));
    const output = new Float32Array(2);
    await step(data, output);
    expect(binding.calls[1]?.requests[0]?.output).toBe(output);
    await step(data, output, { shape });
    await step(data, output, { shape: [2] }); // the same dimensions in another array
    shape.splice(0, 1, 1, 2); // the caller may edit its shape array between calls
    await step(data, output, { shape });
    const requests = binding.calls.map((c) => c.requests[0]);
    expect(requests.map((r) => r?.shape)).toEqual([[2], [2], [2], [2], [1, 2]]);
    expect(new Set(requests).size).toBe(4);
    expect(requests[3]).toBe(requests[2]);
  });

  it('still refuses a misspelt option added to a repeated call', async () => {
    const binding = await startFake();
    const data = new Float32Array([1, 2]);
    const output = new Float32Array(2);
    await step(data, output, { op: undefined });
    // As many keys as the first call's, and every one it had reads the same.
    expect(() => allreduce(data, { name: 'grad.w', output, prescale: 2 } as object)).toThrow(
      "Unknown option 'prescale' for allreduce; expected one of 'name', 'op', 'prescaleFactor', 'postscaleFactor', 'shape', 'output', 'processSet'.",
    );
    expect(binding.calls).toHaveLength(1);
  });

  it.each([
    ['data', 0],
    ['output', 1],
  ])('still refuses the %s once its buffer was transferred away', async (name, which) => {
    const binding = await startFake();
    const arrays = [new Float32Array([1, 2]), new Float32Array(2)] as const;
    await step(...arrays);
    const buffer = arrays[which]?.buffer as ArrayBuffer;
    structuredClone(buffer, { transfer: [buffer] });
    expect(() => step(...arrays)).toThrow(
      `Expected an array whose buffer is still attached (it was transferred or structuredClone()d away; pass a fresh array) for ${name} but received 'a detached buffer'`,
    );
    expect(binding.calls).toHaveLength(1);
  });

  it('makes a new request where a shape, undefined before, is given', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const output = new Float32Array(2);
    await step(data, output, { shape: undefined });
    await step(data, output, { shape: [1, 2] });
    expect(binding.calls.map((c) => c.requests[0]?.shape)).toEqual([[2], [1, 2]]);
  });

  it('makes a new request on a new engine', async () => {
    const data = new Float32Array([1, 2]);
    const output = new Float32Array(2);
    const before = await startFake();
    await step(data, output);
    await shutdown();
    const after = await startFake();
    await step(data, output);
    expect(after.calls[0]?.requests[0]).not.toBe(before.calls[0]?.requests[0]);
    expect(after.calls[0]?.requests[0]).toEqual(before.calls[0]?.requests[0]);
  });
});

describe('groupedAllreduce of the same arrays and options, call after call', () => {
  const arrays = () => [new Float32Array([1, 2]), new Float32Array([3])];
  const group = (inputs: Float32Array[], outputs: Float32Array[], extra: object = {}) =>
    groupedAllreduce([...inputs], { name: 'grads', op: 'sum', outputs: [...outputs], ...extra });

  it('sends the first call’s requests again, and each call gets a list of its own', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const inputs = arrays();
    const outputs = arrays();
    const first = await group(inputs, outputs);
    first.length = 0; // the caller's list to edit
    const second = await group(inputs, outputs);
    const third = groupedAllreduceSync([...inputs], { name: 'grads', op: 'sum', outputs: [...outputs] });
    expect(second).not.toBe(third);
    expect(second).toEqual(outputs);
    expect(second[1]).toBe(outputs[1]);
    const [a, b, c] = binding.calls.map((call) => call.requests[0]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(a?.parts?.outputs).toEqual(outputs);
    expect([...(outputs[0] as Float32Array), ...(outputs[1] as Float32Array)]).toEqual([2, 4, 6]);
  });

  it.each([
    ['another array', (i: Float32Array[], o: Float32Array[]) => group([i[0] as Float32Array, new Float32Array(1)], o)],
    ['another output', (i: Float32Array[], o: Float32Array[]) => group(i, [o[0] as Float32Array, new Float32Array(1)])],
    ['one array less', (i: Float32Array[], o: Float32Array[]) => group(i.slice(0, 1), o.slice(0, 1))],
    ['one array more', (i: Float32Array[], o: Float32Array[]) => group([...i, new Float32Array(1)], [...o, new Float32Array(1)])],
    ['shapes', (i: Float32Array[], o: Float32Array[]) => group(i, o, { shapes: [[1, 2], [1]] })],
    ['another op', (i: Float32Array[], o: Float32Array[]) => group(i, o, { op: 'max' })],
  ])('makes new requests for %s', async (_what, again) => {
    const binding = await startFake({ rank: 0, size: 2 });
    const inputs = arrays();
    const outputs = arrays();
    await group(inputs, outputs);
    await again(inputs, outputs);
    const [first, second] = binding.calls.map((call) => call.requests[0]);
    expect(second).not.toBe(first);
  });

  it('makes new requests where shapes, undefined before, are given', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const inputs = arrays();
    const outputs = arrays();
    await group(inputs, outputs, { shapes: undefined });
    await group(inputs, outputs, { shapes: [[2, 1], undefined] });
    expect(binding.calls.map((call) => call.requests[0]?.parts?.shapes)).toEqual([[[2], [1]], [[2, 1], [1]]]);
  });

  it('still refuses an array more than outputs', async () => {
    const binding = await startFake();
    const inputs = arrays();
    const outputs = arrays();
    await group(inputs, outputs);
    expect(() => group([...inputs, new Float32Array(1)], outputs)).toThrow(
      'Expected an array of 3 entries (one per array) for outputs but received',
    );
    expect(binding.calls).toHaveLength(1);
  });

  it('still refuses a member whose buffer was transferred away, naming it', async () => {
    const binding = await startFake();
    const inputs = arrays();
    const outputs = arrays();
    await group(inputs, outputs);
    const buffer = (outputs[1] as Float32Array).buffer;
    structuredClone(buffer, { transfer: [buffer] });
    expect(() => group(inputs, outputs)).toThrow(
      "Expected an array whose buffer is still attached (it was transferred or structuredClone()d away; pass a fresh array) for outputs[1] but received 'a detached buffer'",
    );
    expect(binding.calls).toHaveLength(1);
  });
});

describe("a repeated plan's intact check (the request queue's, at the end of a turn)", () => {
  // What record() keeps does not depend on the engine: any object stands in for it here.
  const running = {} as Parameters<typeof rememberPlan>[1];
  const planOf = <T>(value: T): Plan<T> => ({ requests: [], grouped: false, finish: () => value });

  it('comes with the first repeat, holds while both arrays keep their lengths, and fails once one is detached', () => {
    const data = new Float32Array(4);
    const output = new Float32Array(4);
    const options = { name: 'w', output };
    const plan = planOf(output);
    rememberPlan('allreduce', running, data, options, plan);
    expect(plan.intact).toBeUndefined(); // made once so far: a turn of it is not remembered
    expect(recurringPlan('allreduce', running, data, options)).toBe(plan);
    expect(plan.intact?.()).toBe(true);
    structuredClone(output.buffer, { transfer: [output.buffer] });
    expect(plan.intact?.()).toBe(false);
  });

  it('fails once any member of a group is detached', () => {
    const arrays = [new Float32Array(2), new Float32Array(3)];
    const options = { name: 'g', outputs: arrays };
    const plan = planOf(arrays);
    rememberGroupPlan(running, { inputs: arrays, outputs: arrays }, options, plan);
    expect(recurringGroupPlan(running, arrays, options)).toBe(plan);
    expect(plan.intact?.()).toBe(true);
    structuredClone(arrays[1]!.buffer, { transfer: [arrays[1]!.buffer] });
    expect(plan.intact?.()).toBe(false);
  });
});
