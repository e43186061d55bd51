import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { io } from '@tensorflow/tfjs-core';
import { expectNonEmptyString } from '@kolo/core';

const modelFile = 'model.json';
const weightsFile = 'weights.bin';

/**
 * A tfjs `IOHandler` with both `save` and `load`.
 *
 * @example
 * ```ts
 * const handler: FileSystemHandler = fileSystemHandler('/tmp/model');
 * ```
 */
export type FileSystemHandler = io.IOHandler & Required<Pick<io.IOHandler, 'save' | 'load'>>;

/**
 * A tfjs `IOHandler` that saves and loads a model as `model.json` + `weights.bin` in a directory,
 * the layout of tfjs-node's `file://` handler, for plain `@tensorflow/tfjs` (which has none).
 * Optimizer weights saved with `includeOptimizer: true` go into the same files.
 *
 * @example
 * ```ts
 * await model.save(fileSystemHandler('/tmp/mnist'), { includeOptimizer: true });
 * const again = await tf.loadLayersModel(fileSystemHandler('/tmp/mnist'));
 * ```
 */
export function fileSystemHandler(directory: string): FileSystemHandler {
  expectNonEmptyString(directory, 'directory');
  return {
    async save(artifacts: io.ModelArtifacts): Promise<io.SaveResult> {
      await mkdir(directory, { recursive: true });
      const weightData = io.CompositeArrayBuffer.join(artifacts.weightData ?? []);
      const modelJson: io.ModelJSON = {
        modelTopology: artifacts.modelTopology ?? {},
        format: artifacts.format,
        generatedBy: artifacts.generatedBy,
        convertedBy: artifacts.convertedBy,
        weightsManifest: [{ paths: [`./${weightsFile}`], weights: artifacts.weightSpecs ?? [] }],
        ...(artifacts.trainingConfig !== undefined && { trainingConfig: artifacts.trainingConfig }),
        ...(artifacts.userDefinedMetadata !== undefined && { userDefinedMetadata: artifacts.userDefinedMetadata }),
      };
      await writeFile(join(directory, weightsFile), new Uint8Array(weightData));
      await writeFile(join(directory, modelFile), JSON.stringify(modelJson));
      return { modelArtifactsInfo: io.getModelArtifactsInfoForJSON(artifacts) };
    },
    async load(): Promise<io.ModelArtifacts> {
      const modelJson = JSON.parse(await readFile(join(directory, modelFile), 'utf8')) as io.ModelJSON;
      return io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const specs = manifest.flatMap((group) => group.weights);
        const buffers = await Promise.all(
          manifest.flatMap((group) => group.paths).map(async (path) => {
            const bytes = await readFile(join(directory, path));
            return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
          }),
        );
        return [specs, io.CompositeArrayBuffer.join(buffers)];
      });
    },
  };
}
