import * as crypto from 'node:crypto';

/** The `prev` of the first record. */
export const GENESIS = '0'.repeat(64);

/** Every ledger line ends with `,"hash":"<64 hex>"}`: the hash is the last key, so a reader checks it without re-serializing. */
export const HASH_SUFFIX_LENGTH = ',"hash":"'.length + 64 + '"}'.length;
const HEX64 = /^[0-9a-f]{64}$/;

/** JSON with keys sorted at every level and no whitespace: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`canonicalJson: ${value} has no JSON form`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

// One-shot `crypto.hash` (Node >= 20.12) avoids a Hash object per ledger line.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function sha256(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * The ledger line of a record body (everything but `hash`): its canonical JSON with the hash of
 * that canonical JSON appended as the last key.
 */
export function sealLine(body: Record<string, unknown>): { line: string; hash: string } {
  const text = canonicalJson(body);
  const hash = sha256(text);
  return { line: `${text.slice(0, -1)},"hash":"${hash}"}`, hash };
}

/**
 * Splits a line into the canonical body it claims and the hash it carries; undefined when the
 * line does not end with a hash. The body's hash must equal the carried one.
 */
export function unsealLine(line: string): { body: string; hash: string } | undefined {
  // Sliced rather than matched: an end-anchored regular expression rescans long lines.
  const n = line.length;
  if (n < HASH_SUFFIX_LENGTH + 2 || !line.endsWith('"}') || line.slice(n - HASH_SUFFIX_LENGTH, n - 66) !== ',"hash":"') return undefined;
  const hash = line.slice(n - 66, n - 2);
  if (!HEX64.test(hash)) return undefined;
  return { body: `${line.slice(0, n - HASH_SUFFIX_LENGTH)}}`, hash };
}
