import type { NativeStoreConfig } from '@kolo/native';
import { expectInteger, expectNonEmptyString, expectOneOf } from '../validation/checks.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { envField, toInteger, toText } from './config-field.js';
import type { Env } from './config-options.js';
import { configDefaults } from './defaults.js';

/**
 * Validates `options.store` and returns it as the engine expects it.
 *
 * @example
 * ```ts
 * storeFromOptions({ kind: 'file', path: '/shared/kolo' }); // { kind: 'file', path: '/shared/kolo' }
 * ```
 */
export function storeFromOptions(store: unknown): NativeStoreConfig {
  if (store === null || typeof store !== 'object') {
    throw invalidArgument({
      what: "a store object ({ kind: 'tcp' | 'file', … })",
      name: 'store',
      value: store,
    });
  }
  const s = store as Record<string, unknown>;
  const kind = expectOneOf(s['kind'], { name: 'store.kind', choices: ['tcp', 'file'] as const });
  if (kind === 'file') return { kind, path: expectNonEmptyString(s['path'], 'store.path') };
  const secret = s['secret'] ?? configDefaults.secret;
  if (typeof secret !== 'string') {
    throw invalidArgument({ what: 'a string', name: 'store.secret', value: secret });
  }
  return {
    kind,
    host: expectNonEmptyString(s['host'], 'store.host'),
    port: expectInteger(s['port'], { name: 'store.port', min: 1, max: 65535 }),
    secret,
  };
}

/**
 * The store named by `KOLO_STORE_ADDR` + `KOLO_STORE_PORT` (+ `KOLO_JOB_SECRET`), else by
 * `KOLO_STORE_PATH`, else undefined. A TCP store wins when both are set.
 *
 * @example
 * ```ts
 * storeFromKoloEnv({ KOLO_STORE_ADDR: '10.0.0.1', KOLO_STORE_PORT: '29400', KOLO_JOB_SECRET: 's' });
 * // { kind: 'tcp', host: '10.0.0.1', port: 29400, secret: 's' }
 * ```
 */
export function storeFromKoloEnv(env: Env): NativeStoreConfig | undefined {
  const addr = envField(env, ['KOLO_STORE_ADDR']);
  if (addr !== undefined) {
    const port = envField(env, ['KOLO_STORE_PORT']) ?? {
      value: undefined,
      name: 'KOLO_STORE_PORT',
    };
    return {
      kind: 'tcp',
      host: toText(addr),
      port: toInteger(port, { min: 1, max: 65535 }),
      secret: env['KOLO_JOB_SECRET'] ?? configDefaults.secret,
    };
  }
  const path = envField(env, ['KOLO_STORE_PATH']);
  return path === undefined ? undefined : { kind: 'file', path: toText(path) };
}
