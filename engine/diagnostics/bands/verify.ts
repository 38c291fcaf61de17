import { def } from '../definition.js';

/** 6xxx source verification. */
export const VERIFY_DIAGNOSTICS = {
  // e.g. example: def({ code: 'OKV6001', severity: 'error', rule: 'rule-name', message: (x: string) => `...${x}`, hint: () => '...' }),
} as const;

void def;
