#!/usr/bin/env node
// npm run bench -- <name> [np]: runs packages/core/bench/<name>.mjs under kolorun.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'packages', 'core', 'bench');
const [name = 'allreduce', np = '2'] = process.argv.slice(2);
const script = join(benchDir, `${name}.mjs`);
if (!existsSync(script)) {
  const known = readdirSync(benchDir).map((f) => f.replace(/\.mjs$/, ''));
  console.error(`Unknown benchmark '${name}'. Known: ${known.join(', ')}`);
  process.exit(2);
}
const launcher = join(root, 'packages', 'launcher', 'dist', 'cli.js');
const run = spawnSync(process.execPath, [launcher, '-np', np, process.execPath, script], { stdio: 'inherit' });
process.exit(run.status ?? 1);
