// The loader: where it looks (KOLO_NATIVE_PATH, the source build, the prebuilt platform package)
// and the exact errors when nothing is usable. Each case imports a copy of the package's dist in a
// separate Node.js process laid out like an installed project.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnoseLoadError } from '../lib/system-libraries.js';

const packageDir = join(__dirname, '..');
const built = join(packageDir, 'build', 'Release', 'kolo_native.node');

/** A project with node_modules/@kolo/native (its dist only) and optionally the platform package. */
function project({ prebuilt }: { prebuilt: boolean }): string {
  const root = mkdtempSync(join(tmpdir(), 'kolo-loader-'));
  const native = join(root, 'node_modules', '@kolo', 'native');
  cpSync(join(packageDir, 'dist'), join(native, 'dist'), { recursive: true });
  writeFileSync(join(native, 'package.json'), JSON.stringify({ name: '@kolo/native', type: 'module', exports: { '.': './dist/index.js' } }));
  if (prebuilt) {
    const platform = join(root, 'node_modules', '@kolo', 'native-linux-x64-gnu');
    mkdirSync(platform, { recursive: true });
    writeFileSync(join(platform, 'package.json'), JSON.stringify({ name: '@kolo/native-linux-x64-gnu', exports: { './kolo_native.node': './kolo_native.node' } }));
    copyFileSync(built, join(platform, 'kolo_native.node'));
  }
  return root;
}

/** Runs loadNative() in `root` and returns the transports or the error's code and message. */
function load(root: string, env: Record<string, string> = {}): { transports?: string[]; code?: string; message?: string } {
  const script = `import('@kolo/native').then(m => { try { console.log(JSON.stringify({ transports: m.loadNative().capabilities().transports })); } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); } })`;
  const base = { ...process.env };
  delete base['KOLO_NATIVE_PATH'];
  delete base['KOLO_BUILD_FROM_SOURCE'];
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env: { ...base, ...env }, encoding: 'utf8' });
  return JSON.parse(run.stdout) as { transports?: string[]; code?: string; message?: string };
}

const fixes =
  'To fix it, install the prebuilt engine with `npm install @kolo/native-linux-x64-gnu` (npm skips this optional dependency under --omit=optional or --no-optional, or when the lockfile was made on another platform); ' +
  'build it from source with `npx kolo-native-build` (needs cmake, g++, pkg-config, libgloo-dev, libssl-dev and optionally libopenmpi-dev; in the Kolo repository: `npm run build -w @kolo/native`); ' +
  'or point KOLO_NATIVE_PATH at a kolo_native.node.';

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('the loader on linux-x64-gnu', () => {
  it('loads the prebuilt platform package when there is no source build', () => {
    expect(load(project({ prebuilt: true })).transports).toContain('gloo');
  });

  it('names the platform, every place it looked and the fixes when nothing is installed (KOLO_NATIVE_MISSING)', () => {
    const root = project({ prebuilt: false });
    const local = join(root, 'node_modules', '@kolo', 'native', 'build', 'Release', 'kolo_native.node');
    expect(load(root)).toEqual({
      code: 'KOLO_NATIVE_MISSING',
      message: `Kolo's native engine was not found for linux-x64-gnu (looked for ${local} (source build, not found), @kolo/native-linux-x64-gnu (not installed)). ${fixes}`,
    });
  });

  it('with KOLO_BUILD_FROM_SOURCE=1, ignores the prebuilt and asks for the source build', () => {
    const root = project({ prebuilt: true });
    const local = join(root, 'node_modules', '@kolo', 'native', 'build', 'Release', 'kolo_native.node');
    const out = load(root, { KOLO_BUILD_FROM_SOURCE: '1' });
    expect(out.code).toBe('KOLO_NATIVE_MISSING');
    expect(out.message).toBe(`Kolo's native engine was not found for linux-x64-gnu (looked for ${local} (source build, not found)). ${fixes}`);
  });

  it('reports an addon that fails to load with code KOLO_NATIVE_ABI and the rebuild command', () => {
    const bogus = join(mkdtempSync(join(tmpdir(), 'kolo-abi-')), 'kolo_native.node');
    writeFileSync(bogus, 'not an ELF file');
    const out = load(project({ prebuilt: true }), { KOLO_NATIVE_PATH: bogus });
    expect(out.code).toBe('KOLO_NATIVE_ABI');
    expect(out.message).toContain(`Kolo's native engine at ${bogus} (KOLO_NATIVE_PATH) failed to load: `);
    expect(out.message).toContain('rebuild it from source with `npx kolo-native-build` (in the Kolo repository: `npm run build -w @kolo/native`).');
  });

  it('names a shared library the addon needs but the system lacks (KOLO_NATIVE_DEPENDENCY)', () => {
    // An addon-shaped library linked against a stub whose soname is then absent at run time.
    const dir = mkdtempSync(join(tmpdir(), 'kolo-dep-'));
    writeFileSync(join(dir, 'stub.c'), 'int kolo_stub(void) { return 1; }\n');
    writeFileSync(join(dir, 'addon.c'), 'int kolo_stub(void);\nint kolo_addon(void) { return kolo_stub(); }\n');
    execFileSync('cc', ['-shared', '-fPIC', '-Wl,-soname,libkolo-absent.so.1', '-o', join(dir, 'libkolo-absent.so.1'), join(dir, 'stub.c')]);
    execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'kolo_native.node'), join(dir, 'addon.c'), join(dir, 'libkolo-absent.so.1')]);
    const out = load(project({ prebuilt: false }), { KOLO_NATIVE_PATH: join(dir, 'kolo_native.node') });
    expect(out).toEqual({
      code: 'KOLO_NATIVE_DEPENDENCY',
      message:
        `Kolo's native engine at ${join(dir, 'kolo_native.node')} (KOLO_NATIVE_PATH) needs the shared library libkolo-absent.so.1, which is not installed. ` +
        'Install the system package that provides libkolo-absent.so.1 (`apt-file search libkolo-absent.so.1` names it), or build the engine from source with `npx kolo-native-build`.',
    });
  });
});

describe('diagnoseLoadError', () => {
  it('maps a missing library of the prebuilt to its Debian package', () => {
    expect(diagnoseLoadError('libmpi.so.40: cannot open shared object file: No such file or directory')).toEqual({
      kind: 'missing-library', library: 'libmpi.so.40', aptPackage: 'libopenmpi3',
    });
    expect(diagnoseLoadError('libgloo.so.0: cannot open shared object file: No such file or directory')).toEqual({
      kind: 'missing-library', library: 'libgloo.so.0', aptPackage: 'libgloo0',
    });
  });

  it('recognises a system library that is too old', () => {
    expect(diagnoseLoadError("/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by /x/kolo_native.node)")).toEqual({
      kind: 'old-system-library', symbolVersion: 'GLIBC_2.38', library: '/lib/x86_64-linux-gnu/libc.so.6',
    });
  });

  it('leaves other failures unclassified', () => {
    expect(diagnoseLoadError('/x/kolo_native.node: invalid ELF header')).toEqual({ kind: 'other' });
  });
});
