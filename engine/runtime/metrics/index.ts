export { RuntimeMetrics } from './runtime-metrics.js';
export { serveMetrics } from './http.js';
export { LabelTally } from './label-tally.js';
