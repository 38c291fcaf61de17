import { def } from '../definition.js';

/** 5xxx generators and packaging. */
export const GENERATE_DIAGNOSTICS = {
  // e.g. example: def({ code: 'OKV5001', severity: 'error', rule: 'rule-name', message: (x: string) => `...${x}`, hint: () => '...' }),
} as const;

void def;
