/** Test helper: removes every variable Kolo's configuration reads, restoring them afterwards. */
import { afterEach, beforeEach } from 'vitest';

const pattern =
  /^(KOLO_|HOROVOD_|OMPI_|PMI_|PMIX_|MPI_LOCAL|TORCHELASTIC_)|^(RANK|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE|GROUP_RANK|GROUP_WORLD_SIZE|MASTER_ADDR|MASTER_PORT)$/;

export function useCleanEnv(): void {
  let saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    saved = {};
    for (const key of Object.keys(process.env)) {
      if (pattern.test(key)) {
        saved[key] = process.env[key];
        delete process.env[key];
      }
    }
  });
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (pattern.test(key)) delete process.env[key];
    Object.assign(process.env, saved);
  });
}
