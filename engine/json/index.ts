/** Bounds on JSON text that arrives from outside (the command line, a client's payload). */
export { jsonNestingDepth } from './nesting.js';
