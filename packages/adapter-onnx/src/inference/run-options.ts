import { checkOptions, expectInteger, expectOneOf, invalidArgument, size } from '@kolo/core';

/**
 * Options of `DistributedInferenceSession.run`.
 *
 * @example
 * ```ts
 * await session.run({ x }, { batchSize: 256, gatherTo: 'root', root: 0 } satisfies DistributedRunOptions);
 * ```
 */
export interface DistributedRunOptions {
  /** Rows per onnxruntime run on each rank (bounds memory); default all of the rank's rows at once. */
  readonly batchSize?: number;
  /** Who receives the ordered outputs: `all` ranks (default) or only `root`. */
  readonly gatherTo?: 'all' | 'root';
  /** The receiving rank for `gatherTo: 'root'`; default 0. */
  readonly root?: number;
  /** Outputs to compute; default every model output. */
  readonly fetches?: readonly string[];
}

/**
 * {@link DistributedRunOptions} with defaults filled in.
 *
 * @example
 * ```ts
 * const o: ResolvedRunOptions = checkRunOptions(undefined, { outputNames: ['logits'], datasetLength: 10 });
 * ```
 */
export interface ResolvedRunOptions {
  readonly batchSize: number;
  readonly gatherTo: 'all' | 'root';
  readonly root: number;
  readonly fetches: readonly string[];
}

/**
 * Validates the options of a distributed run and fills in the defaults.
 *
 * @example
 * ```ts
 * checkRunOptions({ batchSize: 0 }, { outputNames: ['logits'], datasetLength: 10 });
 * // RangeError: Expected an integer >= 1 for batchSize but received 0
 * ```
 */
export function checkRunOptions(
  options: DistributedRunOptions | undefined,
  context: { outputNames: readonly string[]; datasetLength: number },
): ResolvedRunOptions {
  const allowed = ['batchSize', 'gatherTo', 'root', 'fetches'];
  const o = checkOptions(options, { opName: 'DistributedInferenceSession.run', allowed });
  const batchSize = expectInteger(o.batchSize ?? Math.max(1, context.datasetLength), { name: 'batchSize', min: 1 });
  const gatherTo = expectOneOf(o.gatherTo ?? 'all', { name: 'gatherTo', choices: ['all', 'root'] as const });
  const root = expectInteger(o.root ?? 0, { name: 'root', min: 0, max: size() - 1 });
  const fetches = o.fetches ?? context.outputNames;
  const names = context.outputNames.map((n) => `'${n}'`).join(', ');
  if (!Array.isArray(fetches) || fetches.length === 0) {
    throw invalidArgument({ what: `a non-empty array of output names (${names})`, name: 'fetches', value: fetches });
  }
  for (const f of fetches) {
    if (!context.outputNames.includes(f)) throw invalidArgument({ what: `one of the model outputs ${names}`, name: 'fetches entry', value: f });
  }
  return { batchSize, gatherTo, root, fetches };
}
