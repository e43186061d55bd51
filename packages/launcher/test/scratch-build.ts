/**
 * Compiles the launcher and the store sources it needs into a temporary directory, so the tests
 * run the real `kolorun` as a process without depending on `@kolo/core`'s dist (which other
 * parts of core may keep from building). `@kolo/core` resolves to a shim over the compiled
 * rendezvous folder. Builds are cached inside this checkout (`node_modules/.cache`), keyed by a
 * hash of the sources, and are safe to race. They must not live in the shared temp directory: a
 * build there links to the `commander` of whichever checkout made it, and that checkout may be
 * gone by the time another clone with the same sources reuses it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const packages = join(repoRoot, 'packages');
const sourceDirs = ['launcher/src', 'core/src/rendezvous', 'core/src/errors'].map((d) => join(packages, d));

/** Paths of the compiled entry points. */
export interface ScratchBuild {
  /** `kolorun`: run as `node <cli> ...`. */
  readonly cli: string;
  /** The compiled rendezvous index (StoreClient, StoreServer), importable from worker scripts. */
  readonly store: string;
}

function sourceHash(): string {
  const hash = createHash('sha256');
  for (const dir of sourceDirs) {
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) {
      hash.update(name).update(readFileSync(join(dir, name)));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function layout(dir: string): ScratchBuild {
  return {
    cli: join(dir, 'out/launcher/src/cli.js'),
    store: join(dir, 'out/core/src/rendezvous/index.js'),
  };
}

/** Builds once per source state and returns where the outputs are. */
export function scratchBuild(): ScratchBuild {
  const cache = join(repoRoot, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = join(cache, `kolo-launcher-test-${sourceHash()}`);
  if (existsSync(join(dir, 'ok'))) return layout(dir);
  const staging = mkdtempSync(join(cache, 'kolo-launcher-build-'));
  const tsconfig = {
    extends: join(repoRoot, 'tsconfig.base.json'),
    compilerOptions: {
      composite: false,
      incremental: false,
      declaration: false,
      declarationMap: false,
      rootDir: packages,
      outDir: join(staging, 'out'),
      typeRoots: [join(repoRoot, 'node_modules/@types')],
      paths: { '@kolo/core': [join(packages, 'core/src/rendezvous/index.ts')] },
    },
    files: ['index.ts', 'cli.ts', 'mpi-worker.ts'].map((f) => join(packages, 'launcher/src', f)),
  };
  writeFileSync(join(staging, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(staging, 'tsconfig.json')], {
    encoding: 'utf8',
  });
  if (tsc.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  }
  const shim = join(staging, 'out/launcher/node_modules/@kolo/core');
  mkdirSync(shim, { recursive: true });
  writeFileSync(join(shim, 'package.json'), JSON.stringify({ name: '@kolo/core', type: 'module', exports: './index.js' }));
  writeFileSync(join(shim, 'index.js'), "export * from '../../../../core/src/rendezvous/index.js';\n");
  // commander's exports hide its package.json: take its folder from the resolved entry point.
  const entry = createRequire(join(packages, 'launcher/package.json')).resolve('commander');
  const marker = join('node_modules', 'commander');
  const commander = entry.slice(0, entry.lastIndexOf(marker) + marker.length);
  symlinkSync(commander, join(staging, 'out/launcher/node_modules/commander'));
  writeFileSync(join(staging, 'ok'), '');
  try {
    renameSync(staging, dir);
  } catch {
    // Another test file built the same sources first; use theirs.
    rmSync(staging, { recursive: true, force: true });
  }
  return layout(dir);
}
