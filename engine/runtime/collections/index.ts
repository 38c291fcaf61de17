export { IdTable } from './id-table.js';
