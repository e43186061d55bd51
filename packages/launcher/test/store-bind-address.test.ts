import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { JobStore } from '../src/job-store.js';
import type { JobPlan } from '../src/plan.js';
import { storeBindAddress } from '../src/store-bind-address.js';

/** A non-loopback IPv4 address of this host, if it has one. */
const localIp = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;

const advice = "if other hosts can reach this host's own IP address, pass that as --master-addr to bind only its interface";

describe('storeBindAddress', () => {
  it('keeps a bind that is not a wildcard (single-host jobs bind 127.0.0.1)', async () => {
    expect(await storeBindAddress('127.0.0.1', '127.0.0.1')).toEqual({ host: '127.0.0.1' });
  });

  it.runIf(localIp !== undefined)('narrows the wildcard to the master address when it is one of this host', async () => {
    expect(await storeBindAddress('0.0.0.0', localIp as string)).toEqual({ host: localIp });
  });

  it('keeps the wildcard, and says why, for an address this host does not have', async () => {
    expect(await storeBindAddress('0.0.0.0', '203.0.113.7')).toEqual({
      host: '0.0.0.0',
      notice: `the rendezvous store listens on all interfaces (0.0.0.0) because 203.0.113.7 is not an address of this host (NAT or a proxy?); ${advice}`,
    });
  });

  it('keeps the wildcard for a loopback master address (a host name may resolve to 127.0.1.1 here)', async () => {
    const bind = await storeBindAddress('0.0.0.0', '127.0.0.1');
    expect(bind).toEqual({
      host: '0.0.0.0',
      notice: `the rendezvous store listens on all interfaces (0.0.0.0) because 127.0.0.1 is a loopback address here, which other hosts cannot reach; ${advice}`,
    });
  });

  it('keeps the wildcard for a name that does not resolve', async () => {
    expect(await storeBindAddress('0.0.0.0', 'kolo-no-such-host.invalid')).toEqual({
      host: '0.0.0.0',
      notice: `the rendezvous store listens on all interfaces (0.0.0.0) because kolo-no-such-host.invalid does not resolve here (ENOTFOUND); ${advice}`,
    });
  });
});

describe('JobStore.open on node 0 of a multi-host job', () => {
  const plan = (storeAddr: string): JobPlan => ({
    workers: [],
    store: { role: 'host', bind: '0.0.0.0', port: 0 },
    storeAddr,
    secret: 's',
    jobId: 'j',
    nodes: undefined,
  });

  it.runIf(localIp !== undefined)('listens only on the master address', async () => {
    const notices: string[] = [];
    const store = await JobStore.open(plan(localIp as string), 1000, (line) => notices.push(line));
    expect(store['server']?.address).toBe(localIp);
    expect(notices).toEqual([]);
    await store.finish(0);
  });

  it('listens on every interface, with a notice, when the master address is not local', async () => {
    const notices: string[] = [];
    const store = await JobStore.open(plan('203.0.113.7'), 1000, (line) => notices.push(line));
    expect(store['server']?.address).toBe('0.0.0.0');
    expect(notices).toEqual([
      `the rendezvous store listens on all interfaces (0.0.0.0) because 203.0.113.7 is not an address of this host (NAT or a proxy?); ${advice}`,
    ]);
    await store.finish(0);
  });
});
