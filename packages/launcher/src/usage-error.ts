/**
 * The command line or the launch options are wrong: the message says what to pass instead.
 * `kolorun` prints it on one line and exits with code 2.
 *
 * @example
 * ```ts
 * try { parseCommandLine(['-np', '0', 'node', 'x.js']); }
 * catch (e) { if (e instanceof UsageError) console.error(e.message); }
 * ```
 */
export class UsageError extends Error {
  /** Stable machine-readable code. */
  readonly code = 'KOLO_USAGE';
  /** The exit code kolorun uses for usage errors. */
  readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A launch that started but could not go on (store port taken, remote host unreachable).
 * `kolorun` prints it and exits with code 1.
 *
 * @example
 * ```ts
 * if (e instanceof LaunchError) console.error(e.message);
 * ```
 */
export class LaunchError extends Error {
  /** Stable machine-readable code. */
  readonly code = 'KOLO_LAUNCH';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LaunchError';
  }
}
