import type { ContractKind } from '../model/index.js';

const PREFIX = '# yaml-language-server: $schema=';

/**
 * The schema modeline a contract file starts with: `# yaml-language-server: $schema=../schema/hook.json`
 * for `hooks/x.yaml`, relative to the file so it works in any registry folder.
 */
export function modelineFor(kind: ContractKind, file: string): string {
  const depth = file.split('/').length - 1;
  return `${PREFIX}${'../'.repeat(depth)}schema/${kind}.json`;
}

/** Whether a line is a schema modeline (any target). */
export function isModeline(line: string): boolean {
  return line.trimStart().startsWith(PREFIX);
}
