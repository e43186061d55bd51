/** The `@tensorflow/tfjs-core` module. */
export type TfCore = typeof import('@tensorflow/tfjs-core');

let loaded: Promise<TfCore> | undefined;

/**
 * Loads `@tensorflow/tfjs-core` (an optional peer dependency) on first use, so importing this
 * package never needs TensorFlow.js. It resolves to the copy the application uses, which
 * `@tensorflow/tfjs` also loads.
 *
 * @example
 * ```ts
 * const tf = await loadTf();
 * const t = tf.tensor([1, 2]);
 * ```
 */
export function loadTf(): Promise<TfCore> {
  loaded ??= import('@tensorflow/tfjs-core').catch((cause: unknown) => {
    loaded = undefined;
    throw new Error(
      'TensorFlow.js tensors and DistributedDataParallel need @tensorflow/tfjs-core (>=4.22 <5); ' +
        'install @tensorflow/tfjs next to @kolo/compat-ddp.',
      { cause },
    );
  });
  return loaded;
}
