export { type MatrixCell, type ConditionRow, type ContractMatrix, contractMatrix, blockerLines } from './matrix.js';
