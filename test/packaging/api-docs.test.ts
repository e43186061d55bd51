// The API reference builds from TSDoc with every export documented: TypeDoc (typedoc.config.mjs)
// turns any validation warning, an undocumented export above all, into a failed build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

it('builds the API reference of every package without a warning', () => {
  const out = mkdtempSync(join(tmpdir(), 'kolo-api-docs-'));
  const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
  const run = spawnSync(process.execPath, [typedoc, '--out', out, '--logLevel', 'Warn'], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  rmSync(out, { recursive: true, force: true });
  const warnings = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => /\[(warning|error)\]/.test(l));
  expect(warnings).toEqual([]);
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
});
