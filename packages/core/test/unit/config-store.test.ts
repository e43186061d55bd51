import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { UnsupportedError } from '../../src/errors/unsupported-error.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

const torchrun = { RANK: '0', WORLD_SIZE: '2', MASTER_ADDR: '10.1.1.1', MASTER_PORT: '29500' };

describe('store resolution', () => {
  it('uses KOLO_STORE_ADDR/PORT with the job secret', () => {
    const env = {
      KOLO_RANK: '0',
      KOLO_SIZE: '2',
      KOLO_STORE_ADDR: 'h',
      KOLO_STORE_PORT: '4000',
      KOLO_JOB_SECRET: 's3',
      KOLO_STORE_PATH: '/x',
    };
    const config = resolveConfig({}, env);
    expect(config.engine.store).toEqual({ kind: 'tcp', host: 'h', port: 4000, secret: 's3' });
    expect(config.hostStore).toBeUndefined();
  });

  it('uses KOLO_STORE_PATH as a file store', () => {
    expect(
      resolveConfig({}, { KOLO_SIZE: '2', KOLO_STORE_PATH: '/shared/kolo' }).engine.store,
    ).toEqual({
      kind: 'file',
      path: '/shared/kolo',
    });
  });

  it('prefers options.store and validates it', () => {
    const store = { kind: 'file', path: '/o' } as const;
    expect(
      resolveConfig({ store }, { KOLO_SIZE: '2', KOLO_STORE_PATH: '/e' }).engine.store,
    ).toEqual(store);
    expect(
      thrown(() =>
        resolveConfig({ store: { kind: 'tcp', host: 'h', port: 70000, secret: '' } }, {}),
      ).message,
    ).toBe('Expected an integer in [1, 65535] for store.port but received 70000');
    expect(thrown(() => resolveConfig({ store: { kind: 'http' } as never }, {})).message).toBe(
      "Expected one of 'tcp', 'file' for store.kind but received 'http'",
    );
  });

  it.each([
    [
      { KOLO_STORE_ADDR: 'h' },
      'Expected an integer in [1, 65535] for KOLO_STORE_PORT but received undefined',
    ],
    [
      { KOLO_STORE_ADDR: 'h', KOLO_STORE_PORT: '0' },
      "Expected an integer in [1, 65535] for KOLO_STORE_PORT but received '0'",
    ],
    [
      { KOLO_STORE_PORT: '4000' },
      'Expected a host name (set with KOLO_STORE_PORT) for KOLO_STORE_ADDR but received undefined',
    ],
    [
      {},
      'Expected a rendezvous store (KOLO_STORE_ADDR and KOLO_STORE_PORT, KOLO_STORE_PATH, or options.store) for a job of size 2 but received undefined',
    ],
  ])('rejects incomplete store settings %o', (env, text) => {
    expect(
      thrown(() => resolveConfig({}, { KOLO_RANK: '0', KOLO_SIZE: '2', ...env })).message,
    ).toBe(text);
  });

  it('under torchrun, rank 0 hosts the store on MASTER_PORT + 1', () => {
    const config = resolveConfig({}, torchrun);
    const secret = 'torchrun:10.1.1.1:29500:';
    expect(config.launcher).toBe('torchrun');
    expect(config.engine.store).toEqual({ kind: 'tcp', host: '10.1.1.1', port: 29501, secret });
    expect(config.hostStore).toEqual({ host: '0.0.0.0', port: 29501, secret });
    expect(resolveConfig({}, { ...torchrun, RANK: '1' }).hostStore).toBeUndefined();
  });

  it('under torchrun, honours KOLO_STORE_PORT, KOLO_JOB_SECRET and a loopback MASTER_ADDR', () => {
    const env = {
      ...torchrun,
      MASTER_ADDR: '127.0.0.1',
      KOLO_STORE_PORT: '3000',
      KOLO_JOB_SECRET: 'k',
      TORCHELASTIC_RUN_ID: 'r1',
    };
    const config = resolveConfig({}, env);
    expect(config.hostStore).toEqual({ host: '127.0.0.1', port: 3000, secret: 'k' });
    expect(config.engine.storePrefix).toBe('kolo/r1/gen0');
  });

  it('under torchrun, validates MASTER_ADDR and MASTER_PORT', () => {
    expect(thrown(() => resolveConfig({}, { ...torchrun, MASTER_PORT: '65535' })).message).toBe(
      "Expected an integer in [1, 65534] for MASTER_PORT but received '65535'",
    );
    expect(thrown(() => resolveConfig({}, { ...torchrun, MASTER_ADDR: '' })).message).toBe(
      'Expected a non-empty string for MASTER_ADDR but received undefined',
    );
  });

  it('under mpirun, uses a file store named after the job', () => {
    const env = {
      OMPI_COMM_WORLD_RANK: '1',
      OMPI_COMM_WORLD_SIZE: '2',
      OMPI_COMM_WORLD_LOCAL_SIZE: '2',
      PMIX_NAMESPACE: 'prterun-h-1@1',
    };
    const config = resolveConfig({}, env);
    const path = join(tmpdir(), 'kolo-mpi-prterun-h-1_1');
    expect(config.engine.store).toEqual({ kind: 'file', path });
    expect(config.engine.storePrefix).toBe('kolo/prterun-h-1@1/gen0');
    expect(existsSync(path)).toBe(true);
    rmSync(path, { recursive: true, force: true });
  });

  it('under mpirun, needs a job id and a single host', () => {
    expect(thrown(() => resolveConfig({}, { PMI_RANK: '0', PMI_SIZE: '2' })).message).toBe(
      'Expected a job id (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid or KOLO_JOB_ID) to name the MPI file store for KOLO_JOB_ID but received undefined',
    );
    const twoHosts = {
      OMPI_COMM_WORLD_RANK: '0',
      OMPI_COMM_WORLD_SIZE: '4',
      OMPI_COMM_WORLD_LOCAL_SIZE: '2',
      OMPI_MCA_ess_base_jobid: '9',
    };
    const error = thrown(() => resolveConfig({}, twoHosts));
    expect(UnsupportedError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      `Under mpirun without KOLO_STORE_*, Kolo's file store in ${tmpdir()} serves one host only, but this job has 4 ranks and 2 on this host. ` +
        'Export KOLO_STORE_ADDR and KOLO_STORE_PORT (a kolorun store) or KOLO_STORE_PATH (a shared directory).',
    );
  });

  it("rejects horovodrun's HTTP rendezvous unless a Kolo store is set", () => {
    const env = {
      HOROVOD_RANK: '0',
      HOROVOD_SIZE: '2',
      HOROVOD_GLOO_RENDEZVOUS_ADDR: '10.0.0.9',
      HOROVOD_GLOO_RENDEZVOUS_PORT: '1234',
    };
    const error = thrown(() => resolveConfig({}, env));
    expect(error).toBeInstanceOf(UnsupportedError);
    expect(error.message).toBe(
      "horovodrun's Gloo rendezvous (HOROVOD_GLOO_RENDEZVOUS_ADDR=10.0.0.9) is an HTTP store Kolo cannot use. " +
        'Start the job with kolorun, or also export KOLO_STORE_ADDR and KOLO_STORE_PORT pointing at a Kolo store.',
    );
    const withStore = { ...env, KOLO_STORE_ADDR: 'k', KOLO_STORE_PORT: '5' };
    expect(resolveConfig({}, withStore).engine.store).toMatchObject({
      kind: 'tcp',
      host: 'k',
      port: 5,
    });
  });

  it('gives a lone process a fresh temporary file store it owns', () => {
    const a = resolveConfig({}, {});
    const b = resolveConfig({}, {});
    expect(a.engine).toMatchObject({
      rank: 0,
      size: 1,
      localRank: 0,
      localSize: 1,
      crossRank: 0,
      crossSize: 1,
    });
    expect(a.launcher).toBe('none');
    expect(a.engine.store).toEqual({ kind: 'file', path: a.ownedTempDir });
    expect(a.ownedTempDir?.startsWith(join(tmpdir(), 'kolo-'))).toBe(true);
    expect(a.ownedTempDir).not.toBe(b.ownedTempDir);
    for (const dir of [a.ownedTempDir, b.ownedTempDir])
      rmSync(dir ?? '', { recursive: true, force: true });
  });

  it('scopes store keys by job id and generation', () => {
    const env = { KOLO_SIZE: '2', KOLO_STORE_PATH: '/s', KOLO_JOB_ID: 'job7' };
    expect(resolveConfig({ generation: 3 }, env).engine.storePrefix).toBe('kolo/job7/gen3');
    expect(resolveConfig({ jobId: 'mine' }, env).engine.storePrefix).toBe('kolo/mine/gen0');
    expect(resolveConfig({}, { KOLO_SIZE: '2', KOLO_STORE_PATH: '/s' }).engine.storePrefix).toBe(
      'kolo/local/gen0',
    );
  });
});
