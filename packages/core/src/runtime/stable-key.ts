/**
 * A JSON fingerprint of plain data with object keys sorted, so `{a, b}` and `{b, a}` match.
 *
 * @example
 * ```ts
 * stableKey({ b: 1, a: { d: 2, c: 3 } }) === stableKey({ a: { c: 3, d: 2 }, b: 1 }); // true
 * ```
 */
export function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
