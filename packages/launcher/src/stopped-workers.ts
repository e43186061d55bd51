import { readFileSync } from 'node:fs';

/**
 * True when process `pid` is stopped by a signal (SIGSTOP, SIGTSTP…: state `T` in
 * `/proc/<pid>/stat`). False when it runs, is gone, or the platform has no `/proc`.
 *
 * @example
 * ```ts
 * process.kill(child.pid, 'SIGSTOP');
 * isStopped(child.pid); // true (once the signal is delivered)
 * ```
 */
export function isStopped(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "<pid> (<comm>) <state> …": comm may itself contain ") ".
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'T';
  } catch {
    return false;
  }
}

/**
 * Polls every `intervalMs` and calls `onStopped` once per worker seen stopped on two polls in a
 * row, so the launcher can name it before the survivors' engines time out on it. (For a remote
 * worker the pid is its ssh, which a stop of the remote process does not show.) Returns a
 * function that stops polling.
 *
 * @example
 * ```ts
 * const stop = watchStopped(() => alive, 200, (w) => console.log(`rank ${w.rank} is stopped`));
 * ```
 */
export function watchStopped<W extends { readonly pid: number | undefined }>(workers: () => Iterable<W>, intervalMs: number, onStopped: (worker: W) => void): () => void {
  const seen = new Set<W>();
  const reported = new Set<W>();
  const timer = setInterval(() => {
    for (const w of workers()) {
      if (reported.has(w)) continue;
      if (!isStopped(w.pid)) {
        seen.delete(w);
      } else if (seen.has(w)) {
        reported.add(w);
        onStopped(w);
      } else {
        seen.add(w);
      }
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
