import type { Command } from 'commander';
import type { ElasticOptions } from './elastic.js';
import { UsageError } from './usage-error.js';

/** horovodrun's flag that takes two values, `MIN MAX`. */
export const cooldownRangeFlag = '--blacklist-cooldown-range';

/** kolorun's elastic limit flags that take a value. */
export const elasticLimitValueFlags: readonly string[] = ['--reset-limit', cooldownRangeFlag];

/**
 * Adds horovodrun's elastic limit flags, `--reset-limit` and `--blacklist-cooldown-range`.
 *
 * @example
 * ```ts
 * addElasticLimitFlags(new Command('kolorun'));
 * ```
 */
export function addElasticLimitFlags(cmd: Command): Command {
  return cmd
    .option('--reset-limit <count>', 'elastic: fail the job rather than re-form it more than this many times (default: no limit)')
    .option(`${cooldownRangeFlag} <min> <max>`, 'elastic: a failed host gets no new workers for MIN*2^n (+jitter) seconds the n-th time, at most MAX (default: for the rest of the job)');
}

/**
 * Makes `--blacklist-cooldown-range MIN MAX` (or `=MIN MAX`) at `argv[i]` one flag and one value,
 * `MIN MAX`, so commander, which reads one value per flag, keeps both.
 *
 * @example
 * ```ts
 * const argv = ['--blacklist-cooldown-range', '10', '600', 'node'];
 * joinCooldownRange(argv, 0); // argv: ['--blacklist-cooldown-range', '10 600', 'node']
 * ```
 */
export function joinCooldownRange(argv: string[], i: number): void {
  const token = argv[i] as string;
  const inline = token === cooldownRangeFlag ? [] : [token.slice(cooldownRangeFlag.length + 1)];
  const values = [...inline, ...argv.slice(i + 1, i + 3 - inline.length)];
  if (values.length === 0) return;
  argv.splice(i, 1 + values.length - inline.length, cooldownRangeFlag, values.join(' '));
}

function cooldownRangeOf(text: string): readonly [number, number] {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 2 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new UsageError(`Expected MIN MAX seconds with 1 <= MIN <= MAX <= 3600 for ${cooldownRangeFlag} but received ${JSON.stringify(text)}; e.g. ${cooldownRangeFlag} 10 600`);
  }
  return [Math.round(Number(parts[0]) * 1000), Math.round(Number(parts[1]) * 1000)];
}

/**
 * Reads `--reset-limit` and `--blacklist-cooldown-range` from commander's options; both need an
 * elastic job (`--min-np`, `--max-np` or `--host-discovery-script`). `integer` parses a count.
 *
 * @example
 * ```ts
 * elasticLimitsOf({ minNp: '2', resetLimit: '3' }, (t) => Number(t)); // { resetLimit: 3 }
 * ```
 */
export function elasticLimitsOf(
  opts: Record<string, string | undefined>,
  integer: (text: string, flag: string, hint: string) => number,
): Pick<ElasticOptions, 'resetLimit' | 'blacklistCooldownRangeMs'> {
  const { resetLimit, blacklistCooldownRange: range } = opts;
  const given = resetLimit !== undefined ? '--reset-limit' : range !== undefined ? cooldownRangeFlag : undefined;
  if (given === undefined) return {};
  if (opts.minNp === undefined && opts.maxNp === undefined && opts.hostDiscoveryScript === undefined) {
    throw new UsageError(`Expected an elastic job (--min-np, --max-np or --host-discovery-script) for ${given} but received none of those flags; e.g. kolorun -np 4 --min-np 2 ${given === '--reset-limit' ? '--reset-limit 3' : `${cooldownRangeFlag} 10 600`} node train.js`);
  }
  return {
    ...(resetLimit !== undefined && { resetLimit: integer(resetLimit, '--reset-limit', 'e.g. --reset-limit 3') }),
    ...(range !== undefined && { blacklistCooldownRangeMs: cooldownRangeOf(range) }),
  };
}
