/**
 * The data half of the rejection module: the registry's product, profile rules, pins and
 * rejections as ASCII JSON, spliced where the module's text holds a placeholder for each. Pure
 * string work (no compiler), so the Manager can build its checks at start from the committed
 * JavaScript of the module (engine/runtime/handshake/rejection-module.generated.ts).
 */
import { asciiJson, asciiJsonLines } from '../python/index.js';
import type { RejectionTable } from './plan.js';

/** The constants whose initializers are the registry's data. */
export const DATA_CONSTANTS = ['PRODUCT', 'PROFILES', 'PINS', 'REJECTIONS'] as const;

export const placeholder = (name: (typeof DATA_CONSTANTS)[number]) => `__ORBITKV_GENERATED_${name}__`;

/** Each data constant's initializer (JSON is valid TypeScript and JavaScript alike). */
export function rejectionData(table: RejectionTable): Record<(typeof DATA_CONSTANTS)[number], string> {
  return {
    PRODUCT: asciiJson(table.product.name),
    PROFILES: asciiJsonLines(table.profiles).join('\n'),
    PINS: asciiJsonLines(table.pins).join('\n'),
    REJECTIONS: asciiJsonLines(table.rejections).join('\n'),
  };
}

/** `text` with every placeholder replaced by its data; each must occur exactly once. */
export function spliceRejectionData(text: string, table: RejectionTable): string {
  let out = text;
  for (const [name, json] of Object.entries(rejectionData(table)) as [(typeof DATA_CONSTANTS)[number], string][]) {
    // split/join, not replace: the data is never read as a replacement pattern.
    const parts = out.split(placeholder(name));
    if (parts.length !== 2) throw new Error(`placeholder ${placeholder(name)} must occur once in the rejection module`);
    out = parts.join(json);
  }
  return out;
}
