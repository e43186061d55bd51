import { invalidArgument } from '@kolo/core';
import type { OnnxModel } from '../model/onnx-model.js';

/**
 * A trainable weight: a float32 graph input with static dims that has a gradient output.
 *
 * @example
 * ```ts
 * const w: TrainableWeight = { name: 'W1', dims: [784, 16], gradient: 'grad.W1' };
 * ```
 */
export interface TrainableWeight {
  /** The graph input that feeds the weight. */
  readonly name: string;
  /** Its static dims. */
  readonly dims: readonly number[];
  /** The output holding d(loss)/d(weight). */
  readonly gradient: string;
}

/**
 * What a training-step graph consumes and produces, found by Kolo's naming convention.
 *
 * @example
 * ```ts
 * const graph: TrainingGraph = { weights, dataInputs: ['x', 'y'], loss: 'loss' };
 * ```
 */
export interface TrainingGraph {
  /** Weights, in graph-input order. */
  readonly weights: readonly TrainableWeight[];
  /** The inputs that are not weights (the batch), in graph-input order. */
  readonly dataInputs: readonly string[];
  /** The scalar loss output. */
  readonly loss: string;
}

const quoted = (names: readonly string[]): string => names.map((n) => `'${n}'`).join(', ');

/**
 * Reads a training-step graph by the convention: an input `W` is a weight exactly when an
 * output `<gradientPrefix>W` exists (default prefix `grad.`); weights must be float32 with
 * static dims; the loss is the output `lossName`; every other input is data fed per step.
 *
 * @example
 * ```ts
 * describeTrainingGraph(await OnnxModel.load('mlp.train.onnx'), { lossName: 'loss', gradientPrefix: 'grad.' });
 * // { weights: [{ name: 'W1', dims: [784, 16], gradient: 'grad.W1' }, …], dataInputs: ['x', 'y'], loss: 'loss' }
 * ```
 */
export function describeTrainingGraph(
  model: OnnxModel,
  options: { lossName: string; gradientPrefix: string },
): TrainingGraph {
  const { lossName, gradientPrefix } = options;
  const inputs = model.inputs();
  const outputs = model.outputs().map((o) => o.name);
  const inputNames = inputs.map((i) => i.name);
  if (!outputs.includes(lossName)) {
    throw invalidArgument({ what: `an output named by lossName (outputs: ${quoted(outputs)})`, name: 'lossName', value: lossName });
  }
  for (const out of outputs) {
    const weight = out.startsWith(gradientPrefix) ? out.slice(gradientPrefix.length) : undefined;
    if (weight !== undefined && !inputNames.includes(weight)) {
      throw invalidArgument({ what: `a graph input for gradient output '${out}' (inputs: ${quoted(inputNames)})`, name: 'weight', value: weight });
    }
  }
  const weights: TrainableWeight[] = [];
  const dataInputs: string[] = [];
  for (const input of inputs) {
    const gradient = `${gradientPrefix}${input.name}`;
    if (!outputs.includes(gradient)) {
      dataInputs.push(input.name);
      continue;
    }
    const dims = input.dims;
    if (input.type !== 'float32' || !dims || !dims.every((d): d is number => typeof d === 'number')) {
      const got = `${input.type ?? 'non-float32'} [${(dims ?? ['?']).map((d) => d ?? '?').join(', ')}]`;
      throw invalidArgument({ what: 'a float32 input with static dims', name: `weight '${input.name}'`, value: got });
    }
    weights.push({ name: input.name, dims, gradient });
  }
  if (weights.length === 0) {
    throw invalidArgument({ what: `outputs named '${gradientPrefix}<input>' (one per weight)`, name: 'training model outputs', value: outputs });
  }
  return { weights, dataInputs, loss: lossName };
}
