import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { NativeBinding } from './binding.js';
import { withEnqueueBatch } from './pack-batch.js';
import { currentPlatform, prebuiltTriples } from './platform.js';
import { diagnoseLoadError, runtimePackages } from './system-libraries.js';

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, '..');
const require = createRequire(import.meta.url);

const rebuild = '`npx kolo-native-build`';
const buildNeeds = 'needs cmake, g++, pkg-config, libgloo-dev, libssl-dev and optionally libopenmpi-dev';

/** One place the addon may come from. */
interface Candidate {
  /** How the user would name it: `KOLO_NATIVE_PATH`, `source build`, `@kolo/native-linux-x64-gnu`. */
  readonly source: string;
  /** The file, or undefined when the source (a package) is not installed. */
  readonly path: string | undefined;
}

/** True when the environment flag is set to something other than empty, 0 or false. */
function flag(name: string): boolean {
  const value = process.env[name];
  return value !== undefined && !['', '0', 'false'].includes(value.toLowerCase());
}

function prebuilt(packageName: string): Candidate {
  try {
    return { source: packageName, path: require.resolve(`${packageName}/kolo_native.node`) };
  } catch {
    return { source: packageName, path: undefined };
  }
}

/**
 * Where the addon may come from, in order: KOLO_NATIVE_PATH alone when set; else the source
 * build in this package's build/Release (a workspace build or `npx kolo-native-build`; the only
 * candidate when KOLO_BUILD_FROM_SOURCE is set); else the prebuilt platform package.
 */
function candidates(packageName: string): Candidate[] {
  const fromEnv = process.env['KOLO_NATIVE_PATH'];
  if (fromEnv) return [{ source: 'KOLO_NATIVE_PATH', path: fromEnv }];
  const local = { source: 'source build', path: join(packageRoot, 'build', 'Release', 'kolo_native.node') };
  return flag('KOLO_BUILD_FROM_SOURCE') ? [local] : [local, prebuilt(packageName)];
}

function fail(code: string, message: string, cause?: unknown): never {
  throw Object.assign(new Error(message, cause === undefined ? {} : { cause }), { code });
}

function missing(tried: readonly Candidate[], platform: ReturnType<typeof currentPlatform>): never {
  const looked = tried.map((c) => (c.path ? `${c.path} (${c.source}, not found)` : `${c.source} (not installed)`));
  const hasPrebuilt = prebuiltTriples.includes(platform.triple);
  const fixes = [
    ...(hasPrebuilt
      ? [`install the prebuilt engine with \`npm install ${platform.packageName}\` (npm skips this optional dependency under --omit=optional or --no-optional, or when the lockfile was made on another platform)`]
      : [`there is no prebuilt engine for ${platform.triple} (prebuilt: ${prebuiltTriples.join(', ')})`]),
    `build it from source with ${rebuild} (${buildNeeds}; in the Kolo repository: \`npm run build -w @kolo/native\`)`,
    'or point KOLO_NATIVE_PATH at a kolo_native.node',
  ];
  fail('KOLO_NATIVE_MISSING', `Kolo's native engine was not found for ${platform.triple} (looked for ${looked.join(', ')}). To fix it, ${fixes.join('; ')}.`);
}

function unloadable(candidate: Candidate, cause: Error, platform: ReturnType<typeof currentPlatform>): never {
  const at = `Kolo's native engine at ${candidate.path} (${candidate.source})`;
  const problem = diagnoseLoadError(cause.message);
  if (problem.kind === 'missing-library') {
    const install = problem.aptPackage
      ? `Install it with \`sudo apt-get install -y ${problem.aptPackage}\` (the prebuilt engine needs ${runtimePackages.join(', ')})`
      : `Install the system package that provides ${problem.library} (\`apt-file search ${problem.library}\` names it)`;
    fail('KOLO_NATIVE_DEPENDENCY', `${at} needs the shared library ${problem.library}, which is not installed. ${install}, or build the engine from source with ${rebuild}.`, cause);
  }
  if (problem.kind === 'old-system-library') {
    const system = platform.glibcVersion ? ` (this system has glibc ${platform.glibcVersion})` : '';
    fail('KOLO_NATIVE_DEPENDENCY', `${at} needs ${problem.symbolVersion} from ${problem.library}, which is older here${system}; the prebuilt engine is built on Debian 12. Build the engine from source with ${rebuild}.`, cause);
  }
  fail('KOLO_NATIVE_ABI', `${at} failed to load: ${cause.message}. It was probably built for another Node.js or system; rebuild it from source with ${rebuild} (in the Kolo repository: \`npm run build -w @kolo/native\`).`, cause);
}

let cached: NativeBinding | undefined;

/**
 * Loads the native addon once: from `KOLO_NATIVE_PATH` when set, else a source build of this
 * package, else the prebuilt platform package (`@kolo/native-linux-x64-gnu`, an optional
 * dependency). Throws an Error whose `code` is `KOLO_NATIVE_MISSING` (nothing found; the message
 * lists what was tried and the fixes), `KOLO_NATIVE_DEPENDENCY` (a system library is missing or
 * too old; the message names the Debian package) or `KOLO_NATIVE_ABI` (the file does not load).
 *
 * @example
 * ```ts
 * import { loadNative } from '@kolo/native';
 * console.log(loadNative().capabilities().transports); // ['gloo', 'mpi']
 * ```
 */
export function loadNative(): NativeBinding {
  if (cached) return cached;
  const platform = currentPlatform();
  const tried = candidates(platform.packageName);
  const found = tried.find((c): c is Candidate & { path: string } => c.path !== undefined && existsSync(c.path));
  if (!found) missing(tried, platform);
  try {
    cached = withEnqueueBatch(require(found.path) as NativeBinding);
  } catch (cause) {
    unloadable(found, cause as Error, platform);
  }
  return cached;
}
