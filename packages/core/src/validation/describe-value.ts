const maxStringChars = 60;
const maxListed = 8;

/**
 * Renders any value for the `but received <value>` part of a validation message: strings are
 * quoted, short number arrays are listed, other arrays and TypedArrays show their class and
 * length, objects their constructor.
 *
 * @example
 * ```ts
 * describeValue('7');                  // "'7'"
 * describeValue(new Float32Array(3));  // 'Float32Array(3)'
 * describeValue([2, 3]);               // '[2, 3]'
 * describeValue(NaN);                  // 'NaN'
 * ```
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const cut = value.length > maxStringChars ? `${value.slice(0, maxStringChars)}…` : value;
    return `'${cut}'`;
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  if (typeof value === 'symbol') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) {
    const short = value.length <= maxListed && value.every((v) => typeof v === 'number');
    return short ? `[${value.join(', ')}]` : `Array(${value.length})`;
  }
  if (ArrayBuffer.isView(value)) {
    const length = 'length' in value ? (value as { length: number }).length : value.byteLength;
    return `${value.constructor.name}(${length})`;
  }
  const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? `an instance of ${ctor}` : 'an object';
}
