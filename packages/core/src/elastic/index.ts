export { ObjectState } from './object-state.js';
export { run, generation, type ElasticRunOptions } from './run.js';
export { assignmentKey, nextAssignment, ELASTIC_GENERATION_KEY, type Assignment } from './assignment.js';
export { HostsUpdatedInterrupt } from './hosts-updated-interrupt.js';
export { checkHostUpdates, type ElasticState } from './elastic-state.js';
