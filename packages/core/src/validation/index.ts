export { describeValue } from './describe-value.js';
export {
  invalidArgument,
  invalidArgCode,
  type InvalidArgumentOptions,
} from './invalid-argument.js';
export { checkOptions, unknownOptionCode, type CheckOptionsSpec } from './check-options.js';
export {
  expectInteger,
  expectFiniteNumber,
  expectNonEmptyString,
  expectOneOf,
  type IntegerSpec,
} from './checks.js';
export { closestMatch, editDistance } from './edit-distance.js';
