import type * as Ort from 'onnxruntime-node';

/**
 * The onnxruntime-node module, as `import('onnxruntime-node')` yields it.
 *
 * @example
 * ```ts
 * const { Tensor }: OrtModule = await loadOrt();
 * ```
 */
export type OrtModule = typeof Ort;

let loading: Promise<OrtModule> | undefined;

/**
 * Imports the `onnxruntime-node` peer dependency on first use (importing Kolo does not load
 * ORT's native library), with a message that says how to install it when it is missing.
 *
 * @example
 * ```ts
 * const ort = await loadOrt();
 * const session = await ort.InferenceSession.create('mlp.onnx');
 * ```
 */
export function loadOrt(): Promise<OrtModule> {
  loading ??= import('onnxruntime-node').catch((cause: unknown) => {
    loading = undefined;
    throw new Error(
      '@kolo/adapter-onnx needs its peer dependency onnxruntime-node (>= 1.20): npm install onnxruntime-node ' +
        '(offline or without CUDA downloads: ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node)',
      { cause },
    );
  });
  return loading;
}
