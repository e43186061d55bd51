import { envField, firstField, optionField, toText } from './config-field.js';
import type { ConfigOptions, Env } from './config-options.js';
import { configDefaults } from './defaults.js';
import type { LauncherKind } from './launcher-env.js';

/** Variables that name the job, per launcher, after `KOLO_JOB_ID`. */
const launcherJobIdVariables: Readonly<Record<LauncherKind, readonly string[]>> = {
  kolo: [],
  horovod: [],
  mpi: ['PMIX_NAMESPACE', 'OMPI_MCA_ess_base_jobid'],
  torchrun: ['TORCHELASTIC_RUN_ID'],
  none: [],
};

/**
 * The job id from `options.jobId`, `KOLO_JOB_ID`, the launcher (`PMIX_NAMESPACE` or
 * `OMPI_MCA_ess_base_jobid` under MPI, `TORCHELASTIC_RUN_ID` under torchrun), or `'local'`.
 * `found` is false when only the default applied.
 *
 * @example
 * ```ts
 * resolveJobId({}, { env: { PMIX_NAMESPACE: 'prterun-a-1@1' }, launcher: 'mpi' });
 * // { jobId: 'prterun-a-1@1', found: true }
 * ```
 */
export function resolveJobId(
  options: ConfigOptions,
  context: { readonly env: Env; readonly launcher: LauncherKind },
): { readonly jobId: string; readonly found: boolean } {
  const field = firstField(
    optionField(options, 'jobId'),
    envField(context.env, ['KOLO_JOB_ID', ...launcherJobIdVariables[context.launcher]]),
  );
  return field === undefined
    ? { jobId: configDefaults.jobId, found: false }
    : { jobId: toText(field), found: true };
}
