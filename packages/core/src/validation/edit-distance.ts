/**
 * Levenshtein distance (insertions, deletions, substitutions) between two short strings.
 *
 * @example
 * ```ts
 * editDistance('nmae', 'name'); // 2
 * ```
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate closest to `word`, or undefined when none is plausibly a misspelling
 * (distance above a third of the word's length, at least 2).
 *
 * @example
 * ```ts
 * closestMatch('nmae', ['name', 'op']); // 'name'
 * ```
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= limit ? best : undefined;
}
