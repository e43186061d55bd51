import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from './usage-error.js';

/** One host and how many workers it may run. */
export interface HostSlots {
  /** Host name or address as written by the user; ssh connects to it for remote hosts. */
  readonly host: string;
  /** Number of workers this host may run. */
  readonly slots: number;
}

const hostPattern = /^(?:[A-Za-z0-9_.%-]+|\[[0-9A-Fa-f:.%]+\])$/;

function slotCount(text: string, where: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(`Expected a positive slot count ${where} but received "${text}"; e.g. node1:4`);
  }
  return Number(text);
}

/** Joins repeated hosts (keeping the first position), so each host is one node. */
function merge(entries: HostSlots[]): HostSlots[] {
  const byHost = new Map<string, number>();
  for (const { host, slots } of entries) byHost.set(host, (byHost.get(host) ?? 0) + slots);
  return [...byHost].map(([host, slots]) => ({ host, slots }));
}

/**
 * Parses `-H host:slots,host:slots` (Horovod style); a host without `:slots` has one slot.
 *
 * @example
 * ```ts
 * parseHostList('node1:4,node2:4'); // [{ host: 'node1', slots: 4 }, { host: 'node2', slots: 4 }]
 * ```
 */
export function parseHostList(text: string): HostSlots[] {
  const entries = text.split(',').map((item) => {
    const match = /^(.*?)(?::(\d*))?$/.exec(item.trim()) as RegExpExecArray;
    const host = match[1] ?? '';
    if (host === '' || !hostPattern.test(host)) {
      throw new UsageError(`Expected host:slots for -H but received "${item}"; e.g. -H node1:4,node2:4`);
    }
    const slots = match[2] === undefined ? 1 : slotCount(match[2], `for -H entry "${item}"`);
    return { host, slots };
  });
  return merge(entries);
}

/**
 * Reads a hostfile: one host per line as `host slots=N`, `host:N` or `host`; `#` starts a comment.
 *
 * @example
 * ```ts
 * readHostfile('hosts.txt'); // "node1 slots=4\nnode2 slots=4" → two hosts with 4 slots
 * ```
 */
export function readHostfile(path: string): HostSlots[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(
      `Expected a readable hostfile for --hostfile but received "${path}" (${code}); pass a file with one "host slots=N" per line`,
    );
  }
  const entries: HostSlots[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const where = `on line ${index + 1} of ${path}`;
    const [first = '', ...rest] = line.split(/\s+/);
    let parsed = parseHostList(first)[0] as HostSlots;
    for (const field of rest) {
      const m = /^slots=(.*)$/.exec(field);
      if (m === null) {
        throw new UsageError(`Expected "host slots=N" ${where} but received "${line}"`);
      }
      parsed = { host: parsed.host, slots: slotCount(m[1] ?? '', where) };
    }
    entries.push(parsed);
  });
  if (entries.length === 0) {
    throw new UsageError(`Expected at least one host in --hostfile ${path} but received none`);
  }
  return merge(entries);
}

/**
 * True for names that mean this machine (`localhost`, loopback addresses, `os.hostname()`);
 * workers on such hosts are spawned directly instead of through ssh.
 *
 * @example
 * ```ts
 * isLocalHost('localhost'); // true
 * ```
 */
export function isLocalHost(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === hostname();
}
