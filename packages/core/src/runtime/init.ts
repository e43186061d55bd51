import type { NativeBinding } from '@kolo/native';
import { configOptionKeys, type ConfigOptions } from '../config/config-options.js';
import { resolveConfig } from '../config/resolve-config.js';
import { lateJoinOptions } from '../elastic/late-join.js';
import { fromNative } from '../errors/from-native.js';
import { checkOptions } from '../validation/check-options.js';
import { getBinding } from './binding-source.js';
import { RequestQueue } from './request-queue.js';
import { runtimeState, type Session } from './runtime-state.js';
import { stableKey } from './stable-key.js';
import { provideStore } from './store-host.js';
import { storeServedHere } from '../rendezvous/served-here.js';

/**
 * Options of {@link init}: the configuration, plus an optional binding.
 *
 * @example
 * ```ts
 * await init({ timeoutMs: 120_000, iface: 'eth0' } satisfies InitOptions);
 * ```
 */
export interface InitOptions extends ConfigOptions {
  /** Use this binding instead of loading `@kolo/native` (tests, embedders). */
  readonly binding?: NativeBinding;
}

/**
 * Loads the native engine, resolves the configuration (options > `KOLO_*` > launcher variables
 * > defaults) and connects to the other ranks. Calling it again while initialized resolves
 * without re-initializing, as in Horovod; different options then throw. Invalid options or
 * environment throw synchronously (TypeError/RangeError); a failed rendezvous rejects.
 *
 * @example
 * ```ts
 * import { init, rank, size } from '@kolo/core';
 * await init();
 * console.log(`rank ${rank()} of ${size()}`);
 * ```
 */
export function init(options: InitOptions = {}): Promise<void> {
  const stack = new Error();
  const checked = checkOptions(options, {
    opName: 'init',
    allowed: [...configOptionKeys, 'binding'],
  });
  const { binding: injected, ...configOptions } = checked;
  const key = stableKey(configOptions);
  if (runtimeState.stopping !== undefined) {
    return runtimeState.stopping.then(() => init(options));
  }
  const current = runtimeState.session;
  if (current !== undefined) {
    if (current.key === key && current.injected === injected) return current.ready;
    const error = new Error(
      'Kolo is already initialized with different options; call shutdown() before init() with new options.',
    );
    throw Object.assign(error, { code: 'ERR_KOLO_ALREADY_INITIALIZED' });
  }
  // Load the addon first: a missing addon must not leave a temporary store directory behind.
  const binding = injected ?? getBinding();
  const config = resolveConfig(
    {
      // A worker kolorun added to a running elastic job joins the generation in its environment.
      ...lateJoinOptions(configOptions, process.env),
      ...configOptions,
      generation: runtimeState.generation,
      builtTransports: binding.capabilities().transports,
    },
    process.env,
  );
  runtimeState.generation += 1;
  const session: Session = { phase: 'starting', key, injected, ready: Promise.resolve() };
  const start = async (): Promise<void> => {
    let release = async (): Promise<void> => {};
    try {
      release = session.release = await provideStore(config);
      // A store served by this process's event loop rules out cycles on the JS thread (see
      // storeServedHere); the one provideStore hosts (torchrun's rank 0, a tcp:// rendezvous)
      // runs on a worker thread, so it does not.
      const engine = await binding.startEngine({ ...config.engine, callerCycles: !storeServedHere() });
      session.running = { binding, engine, config, counters: new Map(), queue: new RequestQueue(engine) };
      if (session.phase === 'starting') session.phase = 'running';
    } catch (error) {
      if (runtimeState.session === session) runtimeState.session = undefined;
      await release().catch(() => undefined);
      throw fromNative(error, { rank: config.engine.rank, opName: 'init', stack });
    }
  };
  Object.assign(session, { ready: start() });
  runtimeState.session = session;
  return session.ready;
}
