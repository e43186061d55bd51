import { init } from '../../src/index.js';
import { createFakeBinding, type FakeBinding } from './fake-binding.js';

/** The store every unit test's engine names (the fake binding never opens it). */
const store = { kind: 'file', path: '/tmp/kolo-unit' } as const;

/**
 * Initializes Kolo over a fake engine of `size` mirrored ranks (every peer submits what this
 * rank submits) and returns the fake, which records every call.
 *
 * @example
 * ```ts
 * const binding = await startFake({ rank: 1, size: 3 });
 * ```
 */
export async function startFake(
  topology: { rank: number; size: number; callerStacks?: boolean } = { rank: 0, size: 1 },
): Promise<FakeBinding> {
  const binding = createFakeBinding();
  await init({ binding, store, ...topology });
  return binding;
}
