import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../src/validation/check-options.js';
import {
  expectFiniteNumber,
  expectInteger,
  expectNonEmptyString,
  expectOneOf,
} from '../../src/validation/checks.js';
import { describeValue } from '../../src/validation/describe-value.js';
import { closestMatch, editDistance } from '../../src/validation/edit-distance.js';
import { invalidArgument } from '../../src/validation/invalid-argument.js';

const allreduceKeys = ['name', 'op', 'prescaleFactor', 'postscaleFactor', 'shape', 'output'];

function thrown(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a throw');
}

describe('describeValue', () => {
  it.each([
    ['7', "'7'"],
    [7, '7'],
    [NaN, 'NaN'],
    [undefined, 'undefined'],
    [null, 'null'],
    [10n, '10n'],
    [[2, 4], '[2, 4]'],
    [[1, 'a'], 'Array(2)'],
    [new Float32Array(3), 'Float32Array(3)'],
    [new Map(), 'an instance of Map'],
    [{ a: 1 }, 'an object'],
    ['x'.repeat(70), `'${'x'.repeat(60)}…'`],
  ])('renders %o as %s', (value, text) => {
    expect(describeValue(value)).toBe(text);
  });

  it('renders functions by name', () => {
    expect(describeValue(function load() {})).toBe('function load');
  });
});

describe('invalidArgument', () => {
  it('builds the one message shape with a code', () => {
    const e = invalidArgument({
      what: 'an integer in [0, 3]',
      name: 'root',
      value: 4,
      kind: 'range',
    });
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe('Expected an integer in [0, 3] for root but received 4');
    expect((e as { code?: string }).code).toBe('ERR_KOLO_INVALID_ARG');
    expect(invalidArgument({ what: 'a string', name: 'name', value: 1 })).toBeInstanceOf(TypeError);
  });
});

describe('checkOptions', () => {
  const spec = { opName: 'allreduce', allowed: allreduceKeys };

  it('suggests the closest option for a misspelling', () => {
    const e = thrown(() => checkOptions({ nmae: 'w' }, spec));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe("Unknown option 'nmae' for allreduce; did you mean 'name'?");
    expect(e.code).toBe('ERR_KOLO_UNKNOWN_OPTION');
    expect(thrown(() => checkOptions({ prescalefactor: 2 }, spec)).message).toBe(
      "Unknown option 'prescalefactor' for allreduce; did you mean 'prescaleFactor'?",
    );
  });

  it('checks inherited enumerable keys too (reading the options would use them), not methods', () => {
    const inherited = Object.create({ nmae: 'w' }) as object;
    expect(thrown(() => checkOptions(inherited, spec)).message).toBe("Unknown option 'nmae' for allreduce; did you mean 'name'?");
    class Options {
      name = 'g';
      describe(): string {
        return this.name;
      }
    }
    expect(checkOptions(new Options(), spec)).toBeInstanceOf(Options);
  });

  it('lists the options when nothing is close', () => {
    expect(thrown(() => checkOptions({ average: true }, spec)).message).toBe(
      "Unknown option 'average' for allreduce; expected one of 'name', 'op', 'prescaleFactor', " +
        "'postscaleFactor', 'shape', 'output'.",
    );
  });

  it('accepts undefined and rejects non-objects', () => {
    expect(checkOptions(undefined, spec)).toEqual({});
    expect(thrown(() => checkOptions(5 as unknown as object, spec)).message).toBe(
      'Expected an options object for allreduce options but received 5',
    );
    expect(thrown(() => checkOptions([] as unknown as object, spec)).message).toBe(
      'Expected an options object for allreduce options but received []',
    );
  });
});

describe('value checks', () => {
  it('expectInteger names the range', () => {
    expect(expectInteger(3, { name: 'root', min: 0, max: 3 })).toBe(3);
    expect(thrown(() => expectInteger(1.5, { name: 'root', min: 0, max: 3 })).message).toBe(
      'Expected an integer in [0, 3] for root but received 1.5',
    );
    expect(thrown(() => expectInteger('1', { name: 'size', min: 1 })).message).toBe(
      "Expected an integer >= 1 for size but received '1'",
    );
    expect(thrown(() => expectInteger('1', { name: 'size', min: 1 }))).toBeInstanceOf(TypeError);
  });

  it('expectFiniteNumber rejects NaN and infinities', () => {
    expect(thrown(() => expectFiniteNumber(Infinity, 'postscaleFactor')).message).toBe(
      'Expected a finite number for postscaleFactor but received Infinity',
    );
    expect(thrown(() => expectFiniteNumber('2', 'prescaleFactor'))).toBeInstanceOf(TypeError);
  });

  it('expectNonEmptyString and expectOneOf', () => {
    expect(thrown(() => expectNonEmptyString('', 'name')).message).toBe(
      "Expected a non-empty string for name but received ''",
    );
    expect(
      thrown(() => expectOneOf('mean', { name: 'op', choices: ['average', 'sum'] })).message,
    ).toBe("Expected one of 'average', 'sum' for op but received 'mean'");
  });
});

describe('edit distance', () => {
  it('computes Levenshtein distances', () => {
    expect(editDistance('nmae', 'name')).toBe(2);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('only suggests plausible matches', () => {
    expect(closestMatch('roott', ['root', 'name'])).toBe('root');
    expect(closestMatch('zzzzzz', ['root', 'name'])).toBeUndefined();
  });
});
