/**
 * Removal-gate tracking: the evidence ledger, the contract lifecycles (xstate machines), their
 * fold, the board every command renders and the cell matrix behind each state.
 */
export * from './ledger/index.js';
export * from './machines/index.js';
export * from './fold/index.js';
export * from './matrix/index.js';
export * from './board/index.js';
export { type LedgerSession, openSession, parseAt } from './session.js';
