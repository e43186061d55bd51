/** Test helper: hides every variable Kolo's configuration reads, so init() sees one process. */
import { afterAll, beforeAll } from 'vitest';

const pattern =
  /^(KOLO_|HOROVOD_|OMPI_|PMI_|PMIX_|MPI_LOCAL|TORCHELASTIC_)|^(RANK|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE|GROUP_RANK|GROUP_WORLD_SIZE|MASTER_ADDR|MASTER_PORT)$/;

export function useCleanEnv(): void {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const key of Object.keys(process.env)) {
      if (pattern.test(key)) {
        saved[key] = process.env[key];
        delete process.env[key];
      }
    }
  });
  afterAll(() => {
    Object.assign(process.env, saved);
  });
}
