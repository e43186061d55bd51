/** The message `fn` throws; fails the test when it returns instead. */
export function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a throw');
}
