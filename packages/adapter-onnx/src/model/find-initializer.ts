import { invalidArgument } from '@kolo/core';
import type { TensorProtoFields } from './tensor-proto.js';

const listedNames = 8;

function listNames(names: readonly string[]): string {
  if (names.length === 0) return 'the model has none';
  const shown = names.slice(0, listedNames).map((n) => `'${n}'`).join(', ');
  return names.length > listedNames ? `${shown}, … ${names.length} in all` : shown;
}

/**
 * The initializer called `name`; throws a TypeError that lists the names (the first eight) when
 * there is none.
 *
 * @example
 * ```ts
 * findInitializer(graph.initializer, 'b3');
 * // TypeError: Expected the name of an initializer ('W1', 'b1', 'W2', 'b2') for name but received 'b3'
 * ```
 */
export function findInitializer(initializers: readonly TensorProtoFields[], name: unknown): TensorProtoFields {
  const found = initializers.find((t) => t.name === name);
  if (found) return found;
  const names = initializers.map((t) => t.name ?? '');
  throw invalidArgument({ what: `the name of an initializer (${listNames(names)})`, name: 'name', value: name });
}
