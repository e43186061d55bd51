// Checks for the packaging test (scripts/pack-test.mjs): which workspaces are published, what
// each package.json must declare, and which packed files would be test or build leftovers.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The public (non-private) workspace packages: `{ dir, manifest }`, dir relative to the root. */
export function publicWorkspaces(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${parent}/${e.name}`);
  });
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private);
}

/** Problems with a manifest's publishing fields (empty when it is fine). */
export function manifestProblems({ manifest }) {
  const problems = [];
  const need = (ok, what) => ok || problems.push(`${manifest.name}: ${what}`);
  need(manifest.license === 'Apache-2.0', 'license must be Apache-2.0');
  need(/^>=\s*20/.test(manifest.engines?.node ?? ''), 'engines.node must be >= 20');
  need(manifest.sideEffects !== undefined, 'sideEffects must be declared');
  need(Array.isArray(manifest.files) && manifest.files.length > 0, 'files must list what is published');
  need(manifest.publishConfig?.access === 'public', 'publishConfig.access must be public');
  for (const hook of ['preinstall', 'install', 'postinstall']) need(!manifest.scripts?.[hook], `must not have an ${hook} script`);
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    if (typeof target === 'object') need(Object.keys(target)[0] === 'types', `exports["${subpath}"] must list "types" first`);
  }
  return problems;
}

const leftovers = [
  [/(^|\/)(test|tests|__tests__)\//, 'a test folder'],
  [/\.test\.[cm]?[jt]s$/, 'a test file'],
  [/\.tsbuildinfo$/, 'a TypeScript build-info file'],
  [/\.map$/, 'a source map without its sources'],
  [/(^|\/)(build|\.turbo|node_modules|coverage)\//, 'a build folder'],
  [/CMakeCache\.txt$|(^|\/)CMakeFiles\//, 'a CMake build leftover'],
  [/\.tgz$/, 'a tarball'],
];

/**
 * Problems with a packed file list: leftovers, a `.node` outside the platform package, compiled
 * files whose TypeScript source no longer exists, and missing README, export or bin targets.
 */
export function fileProblems(root, { dir, manifest }, files) {
  const problems = [];
  const isPlatform = manifest.name.startsWith('@kolo/native-');
  for (const file of files) {
    for (const [pattern, what] of leftovers) if (pattern.test(file)) problems.push(`${manifest.name}: ${file} is ${what}`);
    if (file.endsWith('.node') && !isPlatform) problems.push(`${manifest.name}: ${file} is a native binary outside the platform package`);
    const compiled = /^dist\/(.+?)(\.d)?\.js$|^dist\/(.+?)\.d\.ts$/.exec(file);
    if (compiled) {
      const stem = compiled[1] ?? compiled[3];
      const sources = ['src', 'lib'].map((s) => join(root, dir, s, `${stem}.ts`));
      if (!sources.some((s) => existsSync(s))) problems.push(`${manifest.name}: ${file} has no source (a stale build output)`);
    }
  }
  const wanted = ['README.md', 'package.json'];
  for (const target of Object.values(manifest.exports ?? {})) {
    wanted.push(...(typeof target === 'string' ? [target] : Object.values(target)));
  }
  wanted.push(...Object.values(manifest.bin ?? {}));
  for (const w of wanted.map((p) => p.replace(/^\.\//, ''))) if (!files.includes(w)) problems.push(`${manifest.name}: ${w} is not in the package`);
  return problems;
}
