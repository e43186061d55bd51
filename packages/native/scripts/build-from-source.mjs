#!/usr/bin/env node
// `npx kolo-native-build`: compiles the engine from this package's C++ sources into
// build/Release/kolo_native.node, which the loader prefers over the prebuilt platform package
// (with KOLO_BUILD_FROM_SOURCE=1 it uses nothing else). Opt-in only: no install script runs it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
// The build tools may sit next to this package or in the project that installed it.
const resolvers = [createRequire(join(packageRoot, 'package.json')), createRequire(join(process.cwd(), 'package.json'))];
const resolve = (id) => {
  for (const r of resolvers) {
    try {
      return r.resolve(id);
    } catch {
      // try the next place
    }
  }
  return undefined;
};
const tools = ['cmake-js', 'node-addon-api', 'node-api-headers'];
const absent = tools.filter((tool) => resolve(`${tool}/package.json`) === undefined);
if (absent.length > 0) {
  console.error(
    `kolo-native-build: a source build needs ${absent.join(', ')}. Add them with ` +
      '`npm install --save-dev cmake-js@^8 node-addon-api@^8 node-api-headers@^1` and the system packages ' +
      '(`sudo apt-get install -y cmake g++ make pkg-config libgloo-dev libssl-dev libopenmpi-dev`), then run `npx kolo-native-build` again.',
  );
  process.exit(1);
}
const cmakeJs = join(dirname(resolve('cmake-js/package.json')), 'bin', 'cmake-js');
console.log(`kolo-native-build: compiling the engine in ${packageRoot}`);
const build = spawnSync(process.execPath, [cmakeJs, 'compile', '--out', 'build', '--', '-j', '2'], { cwd: packageRoot, stdio: 'inherit' });
if (build.status === 0) console.log(`kolo-native-build: built ${join(packageRoot, 'build', 'Release', 'kolo_native.node')}`);
process.exit(build.status ?? 1);
