// The API reference builds from TSDoc with every export documented: TypeDoc (typedoc.config.mjs)
// turns any validation warning, an undocumented export above all, into a failed build.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

it('builds the API reference of every package without a warning', () => {
  // `--emit none` converts and validates every package as `npm run docs` does, without the HTML.
  const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
  const run = spawnSync(process.execPath, [typedoc, '--emit', 'none', '--logLevel', 'Warn'], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const warnings = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => /\[(warning|error)\]/.test(l));
  expect(warnings).toEqual([]);
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
});
