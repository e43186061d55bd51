import { expectInteger } from '../validation/checks.js';

/** What a worker kolorun starts into a running elastic job finds in its environment. */
const topologyVariables = {
  rank: 'KOLO_RANK',
  size: 'KOLO_SIZE',
  localRank: 'KOLO_LOCAL_RANK',
  localSize: 'KOLO_LOCAL_SIZE',
  crossRank: 'KOLO_CROSS_RANK',
  crossSize: 'KOLO_CROSS_SIZE',
} as const;

/** The init options of a late joiner: its elastic generation and its place in it. */
export type LateJoinOptions = { elasticGeneration?: number } & { -readonly [K in keyof typeof topologyVariables]?: number };

/**
 * For a worker kolorun added to a running elastic job (`KOLO_ELASTIC_GENERATION` set, by host
 * discovery): the generation to join and its topology in it, so a plain `init()` joins the job
 * where the others are. Empty when the variable is unset or `explicit` already names a generation
 * (a re-init inside `elastic.run`).
 *
 * @example
 * ```ts
 * lateJoinOptions({}, { KOLO_ELASTIC_GENERATION: '2', KOLO_RANK: '3', KOLO_SIZE: '4' });
 * // { elasticGeneration: 2, rank: 3, size: 4 }
 * ```
 */
export function lateJoinOptions(explicit: { elasticGeneration?: number }, env: NodeJS.ProcessEnv): LateJoinOptions {
  const generation = env.KOLO_ELASTIC_GENERATION;
  if (generation === undefined || generation === '' || explicit.elasticGeneration !== undefined) return {};
  const integer = (name: string, min: number): number => {
    const value = env[name];
    const parsed = value === undefined || value.trim() === '' ? Number.NaN : Number(value);
    // Show the variable as written when it is not a number at all.
    return expectInteger(Number.isNaN(parsed) ? value : parsed, { name, min });
  };
  const out: LateJoinOptions = { elasticGeneration: integer('KOLO_ELASTIC_GENERATION', 1) };
  for (const [key, variable] of Object.entries(topologyVariables) as [keyof typeof topologyVariables, string][]) {
    if (env[variable] !== undefined) out[key] = integer(variable, key.endsWith('Size') ? 1 : 0);
  }
  return out;
}
