// `prepack` of a platform package (platforms/<triple>): copies the workspace's source build
// (build/Release/kolo_native.node) into it, stripped, after checking that this machine matches
// the triple and that the addon links only the system libraries the loader can name a Debian
// package for. Usage: node ../../scripts/copy-prebuilt.mjs linux-x64-gnu
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const triple = process.argv[2];
const nativeRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(nativeRoot, 'build', 'Release', 'kolo_native.node');
const target = join(nativeRoot, 'platforms', triple, 'kolo_native.node');
// glibc, libstdc++ and the libraries of Debian's libgloo0, libopenmpi3 and libssl3.
const allowed = new Set([
  'libgloo.so.0', 'libmpi.so.40', 'libcrypto.so.3', 'libstdc++.so.6', 'libgcc_s.so.1',
  'libc.so.6', 'libm.so.6', 'ld-linux-x86-64.so.2',
]);

function stop(message) {
  console.error(`copy-prebuilt: ${message}`);
  process.exit(1);
}

const glibc = process.report.getReport().header.glibcVersionRuntime;
const here = `${process.platform}-${process.arch}${process.platform === 'linux' ? (glibc ? '-gnu' : '-musl') : ''}`;
if (here !== triple) stop(`this machine is ${here}; the ${triple} package must be packed on ${triple}`);
if (!existsSync(source)) stop(`${source} is missing; build it first with \`npm run build -w @kolo/native\``);

const dynamic = execFileSync('readelf', ['-d', source], { encoding: 'utf8' });
const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
const extra = needed.filter((lib) => !allowed.has(lib));
if (extra.length > 0) {
  stop(`${source} links ${extra.join(', ')}, which the prebuilt must not need (a local NCCL/CUDA build?); rebuild with \`KOLO_NCCL=OFF npx cmake-js rebuild --CDKOLO_NCCL=OFF\` in packages/native`);
}
const runpaths = [...dynamic.matchAll(/\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]+)\]/g)].flatMap((m) => m[1].split(':'));
const foreign = runpaths.filter((p) => !p.startsWith('/usr/lib/') && !p.startsWith('/lib/'));
if (foreign.length > 0) stop(`${source} has a run path outside the system (${foreign.join(', ')}); rebuild without it`);

copyFileSync(source, target);
execFileSync('strip', ['--strip-unneeded', target]);
console.log(`copy-prebuilt: ${target} (links ${needed.join(', ')})`);
