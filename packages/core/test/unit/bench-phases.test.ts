import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

interface Path {
  tags: string[];
  steps: number[][];
  totals: number[];
}
type Analyse = (text: string, iters: number) => Path[];

const driver = pathToFileURL(join(__dirname, '..', '..', 'bench', 'drivers', 'phases.mjs')).href;
const { analyse } = (await import(driver)) as { analyse: Analyse };

// Records as the traced addon writes them: tag, nanoseconds, 1 on the engine's own thread.
const trace = [
  'call 1000 0', 'queued 2000 0', 'cycle 2500 0', 'returned 4000 0', // path A, 4 µs to the next call
  'call 5000 0', 'queued 5500 0', 'cycle 7500 0', 'returned 8000 0', // path A, 4 µs
  'call 9000 0', 'queued 9300 0', 'handed-off 9400 0', 'cycle 20000 1', 'deliver 30000 0', // path B
  'call 40000 0', 'queued 40100 0', 'cycle 40200 0', 'returned 40300 0', // path A, ends at the last call
  'call 41000 0', 'queued 41100 0',
].join('\n');

describe('phases bench: analyse', () => {
  it('groups the calls by path, most common first, with each step and total in µs', () => {
    const [a, b, ...rest] = analyse(trace, 100);
    expect(rest).toEqual([]);
    expect(a!.tags).toEqual(['call', 'queued', 'cycle', 'returned', 'call']);
    expect(a!.totals).toEqual([4, 4, 1]);
    expect(a!.steps).toEqual([
      [1, 0.5, 1.5, 1],
      [0.5, 2, 0.5, 1],
      [0.1, 0.1, 0.1, 0.7],
    ]);
    expect(b!.tags).toEqual(['call', 'queued', 'handed-off', 'cycle*', 'deliver', 'call']);
    expect(b!.totals).toEqual([31]);
  });

  it('keeps only the last `iters` complete calls', () => {
    const paths = analyse(trace, 2);
    expect(paths.map((p) => p.totals)).toEqual([[31], [1]]);
  });
});
