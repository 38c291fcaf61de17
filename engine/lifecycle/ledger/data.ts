import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { jsonNestingDepth } from '../../json/index.js';

/** Evidence data is a few levels deep at most; this leaves room and stops a recursion bomb. */
export const MAX_DATA_DEPTH = 32;

/**
 * Parses a JSON object given on the command line (`--data`, `--profile`): refuses text that is not
 * JSON or not an object (OKV4016), nests deeper than `MAX_DATA_DEPTH` (OKV4014, checked on the text
 * before parsing, so no recursion ever sees it) or holds a number with no finite value such as
 * `1e400` (OKV4015): such a record could not be sealed.
 */
export function parseEvidenceJson(text: string, option: string): { value: Record<string, unknown> } | { refused: Diagnostic } {
  if (jsonNestingDepth(text, MAX_DATA_DEPTH) > MAX_DATA_DEPTH) return { refused: diagnose('evidenceDataTooDeep', {}, option, MAX_DATA_DEPTH) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { refused: diagnose('evidenceDataNotJson', {}, option, (error as Error).message) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { refused: diagnose('evidenceDataNotJson', {}, option, 'not an object') };
  const bad = nonFinite(value, option === '--data' ? 'data' : option.replace(/^--/, ''));
  if (bad !== undefined) return { refused: diagnose('evidenceDataNotFinite', {}, option, bad) };
  return { value: value as Record<string, unknown> };
}

function nonFinite(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = nonFinite(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`);
    if (found !== undefined) return found;
  }
  return undefined;
}
