import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Where the store listens, and why it listens wider than asked when it must. */
export interface StoreBind {
  readonly host: string;
  /** Set when the store falls back to every interface: one line for the user. */
  readonly notice?: string;
}

const wildcard = new Set(['0.0.0.0', '::']);

/** The addresses of this host's interfaces. */
function localAddresses(): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .flatMap((i) => (i === undefined ? [] : [i.address])),
  );
}

const isLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1';

/**
 * Narrows a wildcard bind to the one interface other hosts were told to use (`advertised`: the
 * master address, or this host's name), so the store is not offered on every network this host
 * is on. Binding a specific address only works when it is this host's own, and a name may
 * resolve to loopback locally (Debian maps the host name to 127.0.1.1) while other hosts resolve
 * it to a real address; in those cases the store keeps the wildcard and says why. A bind that is
 * not a wildcard (`127.0.0.1` for single-host jobs) is kept as it is.
 *
 * @example
 * ```ts
 * await storeBindAddress('0.0.0.0', '10.0.0.5'); // { host: '10.0.0.5' } on the host that has 10.0.0.5
 * ```
 */
export async function storeBindAddress(bind: string, advertised: string): Promise<StoreBind> {
  if (!wildcard.has(bind)) return { host: bind };
  const fallback = (why: string): StoreBind => ({
    host: bind,
    notice:
      `the rendezvous store listens on all interfaces (${bind}) because ${why}; ` +
      "if other hosts can reach this host's own IP address, pass that as --master-addr to bind only its interface",
  });
  let addresses: string[];
  if (isIP(advertised) !== 0) {
    addresses = [advertised];
  } else {
    try {
      addresses = [...new Set((await lookup(advertised, { all: true })).map((a) => a.address))];
    } catch (error) {
      return fallback(`${advertised} does not resolve here (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  const named = isIP(advertised) !== 0 ? advertised : `${advertised} (${addresses.join(', ')})`;
  if (addresses.length !== 1) return fallback(`${named} has several addresses`);
  const [address] = addresses as [string];
  if (isLoopback(address)) return fallback(`${named} is a loopback address here, which other hosts cannot reach`);
  if (!localAddresses().has(address)) return fallback(`${named} is not an address of this host (NAT or a proxy?)`);
  return { host: address };
}
