// Issue #11's packaging test as part of `npm test`: every public package packs with a clean file
// list, installs from its tarball into a fresh project outside the workspace, and the tfjs MNIST
// and Horovod-style examples train there under that project's `kolorun -np 2`
// (scripts/pack-test.mjs does the work and says what failed).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

it('packs every package, installs the tarballs in a fresh project and trains there on 2 workers', () => {
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'pack-test.mjs')], { cwd: root, encoding: 'utf8', timeout: 590_000 });
  // The script's reasons (indented lines on stderr) first, so a failure reads as a list.
  expect(run.stderr.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.trim())).toEqual([]);
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  expect(run.stdout.trim().split('\n').at(-1)).toBe('pack test: ok');
});
