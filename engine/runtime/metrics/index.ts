export { RuntimeMetrics } from './runtime-metrics.js';
export { serveMetrics } from './http.js';
