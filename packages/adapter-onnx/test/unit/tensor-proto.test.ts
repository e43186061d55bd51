import { describe, expect, it } from 'vitest';
import { tensorFromProto, tensorIntoProto, type TensorProtoFields } from '../../src/model/tensor-proto.js';
import { argError, caught } from './fixtures.js';

/** An int64 as protobufjs decodes it with the `long` package installed: an object with toString. */
const long = (text: string) => ({ toString: () => text });

describe('tensorFromProto', () => {
  it('reads the typed fields when raw_data is absent', () => {
    expect(tensorFromProto({ name: 'f', dims: [2], dataType: 1, floatData: [0.5, -2] })).toEqual({
      name: 'f', type: 'float32', dims: [2], data: Float32Array.of(0.5, -2),
    });
    expect(tensorFromProto({ name: 'd', dims: [long('1')], dataType: 11, doubleData: [0.1] })).toEqual({
      name: 'd', type: 'float64', dims: [1], data: Float64Array.of(0.1),
    });
    expect(tensorFromProto({ name: 'i', dims: [2], dataType: 7, int64Data: [long('-9007199254740993'), 3] }).data).toEqual(
      BigInt64Array.of(-9007199254740993n, 3n),
    );
    expect(tensorFromProto({ name: 'h', dims: [1], dataType: 10, int32Data: [0x3c00] }).data).toEqual(Uint16Array.of(0x3c00));
    expect(tensorFromProto({ name: 'b', dims: [3], dataType: 9, int32Data: [1, 0, 1] }).data).toEqual(Uint8Array.of(1, 0, 1));
  });

  it('reads little-endian raw_data into its own aligned copy', () => {
    const raw = new Uint8Array(9);
    new DataView(raw.buffer).setFloat64(1, 1.25, true);
    const tensor = tensorFromProto({ name: 'r', dims: [], dataType: 11, rawData: raw.subarray(1) });
    expect(tensor).toEqual({ name: 'r', type: 'float64', dims: [], data: Float64Array.of(1.25) });
  });

  it('rejects external data, unknown types and short raw_data with what to do', () => {
    expect(caught(() => tensorFromProto({ name: 'w', dims: [1], dataType: 1, dataLocation: 1 }))).toEqual({
      name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED',
      message: "Initializer 'w' keeps its data in an external file; save the model with the data inside it (Python: onnx.save(model, path, save_as_external_data=False))",
    });
    expect(caught(() => tensorFromProto({ name: 's', dims: [1], dataType: 8 }))).toEqual({
      name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED',
      message: "Initializer 's' has ONNX data type 8; Kolo handles float32, uint8, int8, int32, int64, bool, float16, float64",
    });
    expect(caught(() => tensorFromProto({ name: 'w', dims: [2], dataType: 1, rawData: new Uint8Array(4) }))).toEqual(
      argError('TypeError', "Expected raw_data of 8 bytes (float32 [2]) for initializer 'w' but received Uint8Array(4)"),
    );
    expect(caught(() => tensorFromProto({ name: 'w', dims: [3], dataType: 1, floatData: [1] }))).toEqual(
      argError('TypeError', "Expected 3 values in float_data (float32 [3]) for initializer 'w' but received [1]"),
    );
  });
});

describe('tensorIntoProto', () => {
  it('writes raw_data and clears typed fields and the external reference', () => {
    const proto: TensorProtoFields = { name: 'w', dims: [2], dataType: 1, floatData: [1, 2], dataLocation: 1, externalData: [{}] };
    tensorIntoProto(proto, { name: 'w', type: 'float32', dims: [2], data: Float32Array.of(3, 4) });
    expect(proto).toEqual({
      name: 'w', dims: [2], dataType: 1, rawData: new Uint8Array(Float32Array.of(3, 4).buffer),
      floatData: [], doubleData: [], int32Data: [], int64Data: [], externalData: [],
    });
    expect(tensorFromProto(proto).data).toEqual(Float32Array.of(3, 4));
  });
});
