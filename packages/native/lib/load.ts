import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { NativeBinding } from './binding.js';

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, '..');

/** Candidate locations of the addon, in the order they are tried. */
function candidatePaths(): string[] {
  const fromEnv = process.env['KOLO_NATIVE_PATH'];
  const local = join(packageRoot, 'build', 'Release', 'kolo_native.node');
  return fromEnv ? [fromEnv, local] : [local];
}

let cached: NativeBinding | undefined;

/**
 * Loads the native addon once. Throws an Error with code `KOLO_NATIVE_MISSING` (and the command
 * that fixes it) when no build is found, or `KOLO_NATIVE_ABI` when the build does not load.
 */
export function loadNative(): NativeBinding {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const found = candidatePaths().find((p) => existsSync(p));
  if (!found) {
    const err = new Error(
      `Kolo's native engine is not built (looked for ${candidatePaths().join(', ')}). ` +
        'Build it with `npm run build -w @kolo/native` (needs cmake, g++ and libgloo-dev), ' +
        'or point KOLO_NATIVE_PATH at a kolo_native.node.',
    );
    throw Object.assign(err, { code: 'KOLO_NATIVE_MISSING' });
  }
  try {
    cached = require(found) as NativeBinding;
  } catch (cause) {
    const err = new Error(
      `Kolo's native engine at ${found} failed to load: ${(cause as Error).message}. ` +
        `It was probably built for another Node.js or system; rebuild it with \`npm run build -w @kolo/native\`.`,
      { cause },
    );
    throw Object.assign(err, { code: 'KOLO_NATIVE_ABI' });
  }
  return cached;
}
