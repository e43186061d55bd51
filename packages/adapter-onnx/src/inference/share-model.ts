import { readFile } from 'node:fs/promises';
import { broadcast, broadcastObject, invalidArgument, rank } from '@kolo/core';

async function readRootModel(model: unknown): Promise<Uint8Array> {
  if (typeof model === 'string') return new Uint8Array(await readFile(model));
  if (model instanceof Uint8Array) return model;
  throw invalidArgument({ what: 'a model path or a Uint8Array on the root rank', name: 'model', value: model });
}

/**
 * Gives every rank the model bytes of rank `root`, which reads `model` when it is a path; the
 * other ranks ignore their `model` (it may be undefined), so only the root needs the file. When
 * the root cannot read it, every rank rejects with the root's message.
 *
 * @example
 * ```ts
 * const bytes = await shareModel({ model: rank() === 0 ? 'mlp.onnx' : undefined, root: 0, name: 'inference' });
 * ```
 */
export async function shareModel(options: { model: unknown; root: number; name: string }): Promise<Uint8Array> {
  const { model, root, name } = options;
  let bytes: Uint8Array | undefined;
  let failure: string | undefined;
  if (rank() === root) {
    bytes = await readRootModel(model).catch((e: unknown) => {
      failure = e instanceof Error ? e.message : String(e);
      return undefined;
    });
  }
  const header = await broadcastObject({ byteLength: bytes?.byteLength ?? 0, failure }, { root, name: `${name}.model_header` });
  if (header.failure !== undefined) throw new Error(`Rank ${root} could not read the model to share: ${header.failure}`);
  const buffer = bytes ?? new Uint8Array(header.byteLength);
  return broadcast(buffer, { root, name: `${name}.model`, output: buffer });
}
