import type { WorkerExit } from './spawn-workers.js';

/** The first failure of a job, as stored under the `kolo/failure` key (JSON). */
export interface FailureRecord {
  readonly rank: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly host: string;
}

/** The store key surviving workers' engines read to name the rank that failed first. */
export const FAILURE_KEY = 'kolo/failure';

/**
 * What kolorun reports for a worker it found stopped (state T) when its peers failed. No process
 * exits by SIGSTOP, so `signal: 'SIGSTOP'` in a {@link FailureRecord} means exactly this.
 */
export const STOPPED_CAUSE = 'stopped by SIGSTOP or SIGTSTP and unresponsive';

/**
 * "exit code 3", "killed by signal SIGKILL", or `STOPPED_CAUSE` ("stopped by SIGSTOP or SIGTSTP
 * and unresponsive") for SIGSTOP.
 *
 * @example
 * ```ts
 * describeExit({ code: null, signal: 'SIGKILL' }); // 'killed by signal SIGKILL'
 * ```
 */
export function describeExit(exit: { readonly code: number | null; readonly signal: string | null }): string {
  if (exit.signal === 'SIGSTOP') return STOPPED_CAUSE;
  return exit.signal !== null ? `killed by signal ${exit.signal}` : `exit code ${exit.code}`;
}

/** True when a worker's exit counts as a failure (non-zero code or any signal). */
export function isFailure(exit: WorkerExit): boolean {
  return exit.signal !== null || exit.code !== 0;
}

/**
 * The report kolorun prints to stderr: who failed first and how, then the tail of its stderr.
 *
 * @example
 * ```ts
 * formatFailureReport({ rank: 1, pid: 42, exit: { code: 3, signal: null }, stderrTail: ['boom'] });
 * // 'kolorun: rank 1 (pid 42) failed first: exit code 3\nkolorun: last lines of rank 1\'s stderr:\nboom\n'
 * ```
 */
export function formatFailureReport(failure: {
  readonly rank: number;
  readonly pid: number | undefined;
  readonly exit: WorkerExit;
  readonly stderrTail: readonly string[];
}): string {
  const { rank, pid, exit, stderrTail } = failure;
  const head = `kolorun: rank ${rank} (pid ${pid ?? 'none'}) failed first: ${describeExit(exit)}\n`;
  if (stderrTail.length === 0) return `${head}kolorun: rank ${rank} wrote nothing to stderr\n`;
  return `${head}kolorun: last lines of rank ${rank}'s stderr:\n${stderrTail.join('\n')}\n`;
}

/**
 * The report when another node's worker failed first (its stderr is in that node's kolorun output).
 *
 * @example
 * ```ts
 * formatRemoteFailure({ rank: 3, exitCode: 3, signal: null, host: 'node1' });
 * ```
 */
export function formatRemoteFailure(record: FailureRecord): string {
  const how = describeExit({ code: record.exitCode, signal: record.signal });
  return `kolorun: rank ${record.rank} on ${record.host} failed first: ${how}\nkolorun: see the kolorun output on ${record.host} for rank ${record.rank}'s stderr\n`;
}
