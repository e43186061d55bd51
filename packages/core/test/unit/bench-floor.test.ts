import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

type Round = Record<'kolo' | 'koloSync' | 'kolo1' | 'koloSync1' | 'shmC' | 'mpiC', number>;
interface Analysis {
  times: Record<keyof Round, number>;
  range: Record<keyof Round, [number, number]>;
  floor: number;
  floorSync: number;
  bestRatio: number;
  bestRatioSync: number;
  ratio: number;
  ratioSync: number;
  overFloor: number;
  overFloorSync: number;
}

const bench = join(__dirname, '..', '..', 'bench');
const { analyse } = (await import(pathToFileURL(join(bench, 'drivers', 'floor.mjs')).href)) as {
  analyse: (rounds: Round[]) => Analysis;
};

describe('floor bench: analyse', () => {
  it('takes each column median over rounds, and each floor and ratio per round before its median', () => {
    const rounds: Round[] = [
      { kolo: 3, koloSync: 2, kolo1: 1.5, koloSync1: 1, shmC: 0.5, mpiC: 2 },
      { kolo: 4, koloSync: 3, kolo1: 2.5, koloSync1: 1.5, shmC: 1.5, mpiC: 4 },
      { kolo: 6, koloSync: 2.5, kolo1: 1, koloSync1: 0.5, shmC: 1, mpiC: 1 },
    ];
    const a = analyse(rounds);
    expect(a.times).toEqual({ kolo: 4, koloSync: 2.5, kolo1: 1.5, koloSync1: 1, shmC: 1, mpiC: 2 });
    expect(a.range.kolo).toEqual([3, 6]);
    expect(a.range.mpiC).toEqual([1, 4]);
    // Per round: floors 2, 4, 2 (awaited) and 1.5, 3, 1.5 (blocking).
    expect(a.floor).toBe(2);
    expect(a.floorSync).toBe(1.5);
    // mpiC / floor per round: 1, 1, 0.5; over blocking floors: 4/3, 4/3, 2/3.
    expect(a.bestRatio).toBe(1);
    expect(a.bestRatioSync).toBeCloseTo(4 / 3, 12);
    // mpiC / kolo: 2/3, 1, 1/6; kolo / floor: 1.5, 1, 3.
    expect(a.ratio).toBeCloseTo(2 / 3, 12);
    expect(a.overFloor).toBe(1.5);
    // mpiC / koloSync: 1, 4/3, 0.4; koloSync / floorSync: 4/3, 1, 5/3.
    expect(a.ratioSync).toBe(1);
    expect(a.overFloorSync).toBeCloseTo(4 / 3, 12);
  });
});

describe('floor bench: the C exchange (baselines/shm_allreduce.c)', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'kolo-floor-test-')), 'shm');
  execFileSync('gcc', ['-O2', '-o', out, join(bench, 'baselines', 'shm_allreduce.c')]);
  const rows = (ranks: number) =>
    execFileSync(out, [String(ranks), '4096', '16384', 'yield'], { encoding: 'utf8', timeout: 60_000 })
      .split('\n')
      .filter((l) => l.startsWith('BENCH '))
      .map((l) => JSON.parse(l.slice(6)) as { bytes: number; us: number; wrong: number });

  it.each([2, 3])('sums exactly on %i ranks, every call, at each size', (ranks) => {
    const got = rows(ranks);
    expect(got.map((r) => [r.bytes, r.wrong])).toEqual([
      [4096, 0],
      [16384, 0],
    ]);
    for (const r of got) expect(r.us).toBeGreaterThan(0);
  });
});
