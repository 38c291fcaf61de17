import { def } from '../definition.js';

/** 4xxx evidence ledger and lifecycles. */
export const LEDGER_DIAGNOSTICS = {
  // e.g. example: def({ code: 'OKV4001', severity: 'error', rule: 'rule-name', message: (x: string) => `...${x}`, hint: () => '...' }),
} as const;

void def;
