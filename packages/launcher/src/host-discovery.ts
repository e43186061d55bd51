import { execFile } from 'node:child_process';

/**
 * Parses a host discovery script's output as horovodrun does: one `host` or `host:slots` per
 * line (a bare host has one slot); blank lines are skipped, a host listed twice adds up. Returns
 * hosts in the order listed. Throws an Error naming the bad line.
 *
 * @example
 * ```ts
 * parseDiscoveredHosts('node1:4\nnode2\n'); // Map { 'node1' => 4, 'node2' => 1 }
 * ```
 */
export function parseDiscoveredHosts(text: string): Map<string, number> {
  const hosts = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const match = /^([^\s:]+)(?::(\d+))?$/.exec(line);
    const slots = match?.[2] === undefined ? 1 : Number(match[2]);
    if (match === null || !Number.isSafeInteger(slots)) {
      throw new Error(`Expected "host" or "host:slots" on every line of the host discovery script's output but received ${JSON.stringify(line)}`);
    }
    const host = match[1] as string;
    hosts.set(host, (hosts.get(host) ?? 0) + slots);
  }
  return hosts;
}

/**
 * Runs `script` through `/bin/sh -c` (so it may carry arguments) and parses its output with
 * {@link parseDiscoveredHosts}. Rejects when it fails, runs past `timeoutMs` or prints bad lines.
 *
 * @example
 * ```ts
 * const hosts = await discoverHosts('./discover-hosts.sh', 10_000);
 * ```
 */
export function discoverHosts(script: string, timeoutMs: number): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', script], { timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error !== null) {
        const why = error.killed ? `ran past ${timeoutMs} ms` : `failed (${error.code ?? error.message}): ${stderr.trim()}`;
        reject(new Error(`Expected the host discovery script ${JSON.stringify(script)} to print hosts but it ${why}`));
        return;
      }
      try {
        resolve(parseDiscoveredHosts(stdout));
      } catch (parseError) {
        reject(parseError as Error);
      }
    });
  });
}

/**
 * Runs the discovery script every `intervalMs` (one run at a time) and calls `onHosts` with each
 * result, or `onError` with a one-line reason. Returns a function that stops it.
 *
 * @example
 * ```ts
 * const stop = watchHostDiscovery('./discover.sh', 1000, (hosts) => grow(hosts), (why) => log(why));
 * ```
 */
export function watchHostDiscovery(
  script: string,
  intervalMs: number,
  onHosts: (hosts: Map<string, number>) => void,
  onError: (reason: string) => void,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    discoverHosts(script, Math.max(intervalMs * 10, 10_000))
      .then((hosts) => !stopped && onHosts(hosts), (error: Error) => !stopped && onError(error.message))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
