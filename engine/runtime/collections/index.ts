export { IdTable } from './id-table.js';
export { NameTable } from './name-table.js';
