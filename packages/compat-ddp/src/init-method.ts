import { valueError, runtimeError } from './torch-errors.js';

/**
 * Where the ranks of a job meet, parsed from an `initMethod` URL as torch's `rendezvous()` does.
 *
 * @example
 * ```ts
 * const plan: Rendezvous = parseInitMethod('tcp://10.0.0.1:23456', { rank: 0, worldSize: 2 }, {});
 * ```
 */
export type Rendezvous =
  | { readonly kind: 'launcher' }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number; readonly rank: number; readonly worldSize: number }
  | { readonly kind: 'file'; readonly path: string; readonly rank: number; readonly worldSize: number };

/** Ranks given to `initProcessGroup` (-1 = not given, as torch). */
export interface GivenRanks {
  readonly rank: number;
  readonly worldSize: number;
}

type Env = Readonly<Record<string, string | undefined>>;

const rendezvousError = (scheme: string, message: string): Error =>
  valueError(`Error initializing torch.distributed using ${scheme}:// rendezvous: ${message}`);

/** Launchers whose environment `@kolo/core` reads itself (kolorun, horovodrun, mpirun). */
function koloLauncher(env: Env): boolean {
  const set = (name: string): boolean => (env[name] ?? '') !== '';
  return ['KOLO_RANK', 'KOLO_SIZE', 'HOROVOD_RANK', 'HOROVOD_SIZE', 'OMPI_COMM_WORLD_RANK', 'PMI_RANK'].some(set);
}

function integerParam(scheme: string, text: string, what: string): number {
  if (!/^-?\d+$/.test(text)) throw rendezvousError(scheme, `${what} parameter is not an integer: ${text}`);
  return Number(text);
}

function ranksOf(scheme: string, query: URLSearchParams, given: GivenRanks): GivenRanks {
  const rankText = given.rank >= 0 ? String(given.rank) : query.get('rank');
  if (rankText === null) throw rendezvousError(scheme, 'rank parameter missing');
  const sizeText = given.worldSize > 0 ? String(given.worldSize) : query.get('world_size');
  if (sizeText === null) throw rendezvousError(scheme, 'world size parameter missing');
  return { rank: integerParam(scheme, rankText, 'rank'), worldSize: integerParam(scheme, sizeText, 'world size') };
}

function envRendezvous(query: URLSearchParams, given: GivenRanks, env: Env): Rendezvous {
  const read = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '') {
      throw rendezvousError('env', `environment variable ${name} expected, but not set`);
    }
    return value;
  };
  const rank = given.rank >= 0 ? given.rank : Number(query.get('rank') ?? read('RANK'));
  const worldSize = given.worldSize > 0 ? given.worldSize : Number(query.get('world_size') ?? read('WORLD_SIZE'));
  const host = read('MASTER_ADDR');
  const port = portOf(read('MASTER_PORT'));
  return { kind: 'tcp', host, port, rank, worldSize };
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw valueError(`port must have value from 0 to 65535 but was ${text}`);
  }
  return port;
}

function parseUrl(scheme: string, initMethod: string): URL {
  try {
    // A non-special scheme keeps every port as written (http would drop :80).
    return new URL(scheme === 'file' ? initMethod : initMethod.replace(/^[^:]+:/, 'kolo:'));
  } catch {
    throw rendezvousError(scheme, `cannot parse ${JSON.stringify(initMethod)} as a URL`);
  }
}

/**
 * Parses `env://` (the default), `tcp://host:port` and `file:///path` with torch's checks and
 * messages (`Error initializing torch.distributed using env:// rendezvous: environment variable
 * MASTER_ADDR expected, but not set`, `… tcp:// rendezvous: port number missing`, …). `env://`
 * under kolorun, horovodrun or mpirun, or under torchrun (`RANK` and `WORLD_SIZE` set, no ranks
 * given), is left to `@kolo/core`, which reads those environments itself.
 *
 * @example
 * ```ts
 * parseInitMethod('file:///shared/job1', { rank: 1, worldSize: 2 }, process.env);
 * // { kind: 'file', path: '/shared/job1', rank: 1, worldSize: 2 }
 * ```
 */
export function parseInitMethod(initMethod: string, given: GivenRanks, env: Env): Rendezvous {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(initMethod);
  const scheme = match?.[1]?.toLowerCase() ?? '';
  if (scheme !== 'env' && scheme !== 'tcp' && scheme !== 'file') {
    throw runtimeError(`No rendezvous handler for ${scheme}://`);
  }
  const url = parseUrl(scheme, initMethod);
  if (scheme === 'env') {
    const torchrun = (env.RANK ?? '') !== '' && (env.WORLD_SIZE ?? '') !== '' && given.rank < 0 && given.worldSize <= 0;
    if (koloLauncher(env) || torchrun) return { kind: 'launcher' };
    return envRendezvous(url.searchParams, given, env);
  }
  if (scheme === 'tcp') {
    if (url.port === '') throw rendezvousError('tcp', 'port number missing');
    const port = portOf(url.port);
    return { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port, ...ranksOf('tcp', url.searchParams, given) };
  }
  const path = decodeURIComponent(url.pathname);
  if (path === '' || path === '/') throw rendezvousError('file', 'path missing');
  return { kind: 'file', path, ...ranksOf('file', url.searchParams, given) };
}
