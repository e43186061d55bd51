/**
 * `@kolo/launcher`: the building blocks of `kolorun`. Most users run the `kolorun` binary;
 * {@link launch} runs the same job from code.
 */
export { launch } from './launch.js';
export { LAUNCH_DEFAULTS, type LaunchOptions, type MultiNodeOptions } from './launch-options.js';
export { parseCommandLine } from './options.js';
export { isLocalHost, parseHostList, readHostfile, type HostSlots } from './hosts.js';
export { placeWorkers, planJob, type JobPlan, type WorkerPlacement } from './plan.js';
export { workerEnv, type JobEnvironment } from './worker-env.js';
export { checkSshHosts, shellQuote, sshArgs, sshOptionArgs, type SshOptions } from './remote-command.js';
export { LinePrefixer, LineSplitter, LineTail } from './output-prefix.js';
export { spawnWorker, type RunningWorker, type WorkerExit, type WorkerSpec } from './spawn-workers.js';
export { supervise, type SuperviseOptions } from './supervise.js';
export type { ElasticSupervision } from './elastic-membership.js';
export type { ElasticLimitOptions } from './elastic-limits.js';
export type { BlacklistClock } from './host-blacklist.js';
export { JobStore } from './job-store.js';
export { checkElastic, survivorTopology, type ElasticOptions, type ElasticTopology } from './elastic.js';
export {
  FAILURE_KEY,
  describeExit,
  formatFailureReport,
  formatRemoteFailure,
  isFailure,
  type FailureRecord,
} from './failure-report.js';
export { LaunchError, UsageError } from './usage-error.js';
export { addHorovodFlags, checkTransport, horovodOptions } from './horovod-flags.js';
export { gpusOf, sshOptionsOf, visibleDevice } from './device-and-ssh-flags.js';
export { addTorchrunFlags, torchrunEnv, torchrunOptions, torchrunSpelling } from './torchrun-flags.js';
