export { init, type InitOptions } from './init.js';
export { shutdown, isInitialized } from './shutdown.js';
export { rank, size, localRank, localSize, crossRank, crossSize, transport } from './topology.js';
export { capabilities, type Capabilities } from './capabilities.js';
export { startTimeline, stopTimeline, type StartTimelineOptions } from './timeline.js';
export { currentTuning, type TuningState } from './current-tuning.js';
export { singleCopy } from './single-copy.js';
