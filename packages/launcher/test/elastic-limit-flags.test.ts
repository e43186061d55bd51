import { describe, expect, it } from 'vitest';
import { joinCooldownRange } from '../src/elastic-flags.js';
import { checkElastic } from '../src/elastic.js';
import { parseCommandLine } from '../src/options.js';
import { UsageError } from '../src/usage-error.js';

const parse = (...flags: string[]) => parseCommandLine(['-np', '4', '--min-np', '2', ...flags, 'node', 'x.js', '--reset-limit', '9']);

describe('kolorun --reset-limit and --blacklist-cooldown-range', () => {
  it('reads both into the elastic options, in ms, and leaves the worker command alone', () => {
    expect(parse('--reset-limit', '3', '--blacklist-cooldown-range', '10', '600.5')).toMatchObject({
      command: ['node', 'x.js', '--reset-limit', '9'],
      elastic: { minNp: 2, maxNp: 4, resetLimit: 3, blacklistCooldownRangeMs: [10_000, 600_500] },
    });
    expect(parse('--reset-limit=0', '--blacklist-cooldown-range=1', '3600').elastic).toEqual({ minNp: 2, maxNp: 4, resetLimit: 0, blacklistCooldownRangeMs: [1000, 3_600_000] });
    expect(parse().elastic).toEqual({ minNp: 2, maxNp: 4 });
  });

  it('joins the two values of --blacklist-cooldown-range into one for commander', () => {
    const argv = ['--blacklist-cooldown-range', '10', '600', 'node'];
    joinCooldownRange(argv, 0);
    expect(argv).toEqual(['--blacklist-cooldown-range', '10 600', 'node']);
    const inline = ['-v', '--blacklist-cooldown-range=10', '600', 'node'];
    joinCooldownRange(inline, 1);
    expect(inline).toEqual(['-v', '--blacklist-cooldown-range', '10 600', 'node']);
  });

  it('refuses bad values with the exact message', () => {
    expect(() => parse('--reset-limit', '-1')).toThrow(new UsageError('Expected a non-negative integer for --reset-limit but received "-1"; e.g. --reset-limit 3'));
    expect(() => parse('--reset-limit', 'many')).toThrow(new UsageError('Expected a non-negative integer for --reset-limit but received "many"; e.g. --reset-limit 3'));
    expect(() => parse('--blacklist-cooldown-range', '10', 'node')).toThrow(
      new UsageError('Expected MIN MAX seconds with 1 <= MIN <= MAX <= 3600 for --blacklist-cooldown-range but received "10 node"; e.g. --blacklist-cooldown-range 10 600'),
    );
    for (const [min, max] of [['0.5', '10'], ['20', '10'], ['10', '3601']]) {
      expect(() => parse('--blacklist-cooldown-range', min as string, max as string)).toThrow(
        new UsageError(`Expected MIN MAX seconds with 1 <= MIN <= MAX <= 3600 for --blacklist-cooldown-range but received ${min} ${max}; e.g. --blacklist-cooldown-range 10 600`),
      );
    }
  });

  it('needs an elastic job', () => {
    expect(() => parseCommandLine(['-np', '2', '--reset-limit', '3', 'node', 'x.js'])).toThrow(
      new UsageError('Expected an elastic job (--min-np, --max-np or --host-discovery-script) for --reset-limit but received none of those flags; e.g. kolorun -np 4 --min-np 2 --reset-limit 3 node train.js'),
    );
    expect(() => parseCommandLine(['-np', '2', '--blacklist-cooldown-range', '10', '600', 'node', 'x.js'])).toThrow(
      new UsageError('Expected an elastic job (--min-np, --max-np or --host-discovery-script) for --blacklist-cooldown-range but received none of those flags; e.g. kolorun -np 4 --min-np 2 --blacklist-cooldown-range 10 600 node train.js'),
    );
  });

  it('checks the same limits when launch() gets them directly', () => {
    expect(() => checkElastic({ minNp: 1, maxNp: 2, resetLimit: 1.5 }, 2)).toThrow('Expected a non-negative integer for --reset-limit but received 1.5; e.g. --reset-limit 3');
    expect(() => checkElastic({ minNp: 1, maxNp: 2, blacklistCooldownRangeMs: [5000, 4000] }, 2)).toThrow(
      'Expected MIN MAX seconds with 1 <= MIN <= MAX <= 3600 for --blacklist-cooldown-range but received 5 4; e.g. --blacklist-cooldown-range 10 600',
    );
  });
});
