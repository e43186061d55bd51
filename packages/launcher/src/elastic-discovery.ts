import type { Writable } from 'node:stream';
import type { ElasticMembership, ElasticSupervision } from './elastic-membership.js';
import { watchHostDiscovery } from './host-discovery.js';
import type { RunningWorker } from './spawn-workers.js';

/**
 * Runs `--host-discovery-script` for an elastic job: each result may stop workers on hosts with
 * fewer slots (see {@link ElasticMembership.shrink}) and start workers on free slots (see
 * {@link ElasticMembership.grow}), which go to `add`; a failing script is reported once per
 * distinct reason. Returns a function that stops it.
 *
 * @example
 * ```ts
 * const stop = startHostDiscovery(options.elastic, membership, () => alive, track, process.stderr);
 * ```
 */
export function startHostDiscovery(
  elastic: ElasticSupervision | undefined,
  membership: ElasticMembership | undefined,
  alive: () => ReadonlySet<RunningWorker>,
  add: (w: RunningWorker) => void,
  stderr: Writable,
): () => void {
  const script = elastic?.hostDiscoveryScript;
  if (membership === undefined || script === undefined) return () => {};
  let growing = false;
  let lastError = '';
  return watchHostDiscovery(script, elastic?.discoveryIntervalMs ?? 1000, (hosts) => {
    if (growing) return;
    growing = true;
    membership.onDiscovered(hosts);
    const removed = membership.shrink(hosts, alive());
    if (removed.length > 0) stderr.write(`kolorun: host discovery lists fewer slots; stopping rank(s) ${removed.map((w) => w.rank).join(', ')}\n`);
    membership
      .grow(hosts, alive())
      .then((started) => started.forEach(add))
      .catch((error: Error) => stderr.write(`kolorun: could not add workers: ${error.message}\n`))
      .finally(() => (growing = false));
  }, (reason) => {
    if (reason !== lastError) stderr.write(`kolorun: ${reason}\n`);
    lastError = reason;
  });
}
