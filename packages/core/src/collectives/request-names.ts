import { expectNonEmptyString } from '../validation/checks.js';
import { invalidArgument } from '../validation/invalid-argument.js';

/** Names travel to the coordinator every cycle; this bounds what one request costs. */
const maxNameLength = 1024;

/**
 * The engine-wide name of a request: the caller's `name` as given (as Horovod's TensorFlow and
 * Keras paths do, so two ranks that use one name for different ops get "Mismatched operations"
 * instead of a stall), else `<op>.noname.<n>` with a per-op counter (starting at 0 every
 * generation). Unnamed requests therefore only match across ranks when every rank issues the
 * same sequence of them.
 *
 * @example
 * ```ts
 * const counters = new Map<string, number>();
 * requestName(counters, { op: 'allreduce' });               // 'allreduce.noname.0'
 * requestName(counters, { op: 'allreduce', name: 'grad' }); // 'grad'
 * requestName(counters, { op: 'barrier', processSet: 2 });  // 'barrier.noname.0@ps2'
 * ```
 */
export function requestName(
  counters: Map<string, number>,
  request: { readonly op: string; readonly name?: unknown; readonly processSet?: number },
): string {
  // Horovod keeps names and counters per process set: two sets may use one name at the same
  // time, and unnamed requests count separately in each set.
  const set = request.processSet ?? 0;
  if (request.name !== undefined) {
    const name = expectNonEmptyString(request.name, 'name');
    if (name.length > maxNameLength) {
      throw invalidArgument({ what: `a name of at most ${maxNameLength} characters`, name: 'name', value: `${name.slice(0, 20)}… (${name.length} characters)`, kind: 'range' });
    }
    return scoped(name, set);
  }
  const counter = scoped(request.op, set);
  const n = counters.get(counter) ?? 0;
  counters.set(counter, n + 1);
  return scoped(`${request.op}.noname.${n}`, set);
}

/** `name` within process set `set` (0: every rank). */
function scoped(name: string, set: number): string {
  return set === 0 ? name : `${name}@ps${set}`;
}

/**
 * Member names of a group: `<base>_<i>of<n>`, 1-based, as Horovod's grouped ops (a grouped
 * allreduce's members are its per-dtype packs).
 *
 * @example
 * ```ts
 * groupMemberNames('grouped_allreduce.noname.0', 2);
 * // ['grouped_allreduce.noname.0_1of2', 'grouped_allreduce.noname.0_2of2']
 * ```
 */
export function groupMemberNames(base: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${base}_${i + 1}of${count}`);
}
