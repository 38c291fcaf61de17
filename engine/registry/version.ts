/**
 * PEP 440 versions: the one comparison every part of the engine uses (registry rules, the
 * lifecycle guards, the board). Engines publish PEP 440 versions, so a pin, a release containing
 * a change and a version seen on a machine (`0.31.0+cu130`, `v0.5.22`, `0.5.22rc1`) are ordered
 * as pip orders them: epoch, release numbers (trailing zeros ignored), then pre-release
 * (`a` < `b` < `rc`), post-release and development release, then the local part.
 */

/** A parsed version; `key` orders it. */
export interface ParsedVersion {
  epoch: number;
  release: number[];
  pre?: { label: 'a' | 'b' | 'rc'; n: number };
  post?: number;
  dev?: number;
  local?: (number | string)[];
}

// PEP 440's grammar with its permitted spellings (case-insensitive, `v` prefix, `-`/`_`/`.` separators).
const PATTERN = new RegExp(
  '^\\s*v?(?:(\\d+)!)?(\\d+(?:\\.\\d+)*)' +
    '(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?(\\d+)?)?' +
    '(?:-(\\d+)|[-_.]?(post|rev|r)[-_.]?(\\d+)?)?' +
    '(?:[-_.]?(dev)[-_.]?(\\d+)?)?' +
    '(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\\s*$',
  'i',
);

const PRE_LABELS: Record<string, 'a' | 'b' | 'rc'> = { alpha: 'a', a: 'a', beta: 'b', b: 'b', c: 'rc', rc: 'rc', pre: 'rc', preview: 'rc' };

/** Parses a PEP 440 version; undefined when it is not one. */
export function parseVersion(text: string): ParsedVersion | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, epoch, release, preLabel, preN, postDash, postLabel, postN, devLabel, devN, local] = m;
  const out: ParsedVersion = { epoch: epoch ? Number(epoch) : 0, release: release!.split('.').map(Number) };
  if (preLabel) out.pre = { label: PRE_LABELS[preLabel.toLowerCase()]!, n: preN ? Number(preN) : 0 };
  if (postDash !== undefined) out.post = Number(postDash);
  else if (postLabel) out.post = postN ? Number(postN) : 0;
  if (devLabel) out.dev = devN ? Number(devN) : 0;
  if (local) out.local = local.toLowerCase().split(/[-_.]/).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return out;
}

const PRE_RANK = { a: 0, b: 1, rc: 2 } as const;

function compareNumbers(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The pre-release position: a dev release of the release itself comes before its pre-releases; a final release after them. */
function preKey(v: ParsedVersion): number[] {
  if (v.pre) return [PRE_RANK[v.pre.label], v.pre.n];
  if (v.dev !== undefined && v.post === undefined) return [-1];
  return [3];
}

function compareLocal(a: ParsedVersion['local'], b: ParsedVersion['local']): number {
  if (!a || !b) return a ? 1 : b ? -1 : 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    // A numeric segment sorts after an alphanumeric one.
    if (typeof x !== typeof y) return typeof x === 'number' ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareParsed(x: ParsedVersion, y: ParsedVersion): number {
  return (
    Math.sign(x.epoch - y.epoch) ||
    compareNumbers(x.release, y.release) ||
    compareNumbers(preKey(x), preKey(y)) ||
    Math.sign((x.post ?? -1) - (y.post ?? -1)) ||
    Math.sign((x.dev ?? Infinity) - (y.dev ?? Infinity) || 0) ||
    compareLocal(x.local, y.local)
  );
}

/** A registry and a ledger name few versions, and guards compare them on every step: parse each once (bounded). */
const parsed = new Map<string, ParsedVersion | null>();
const PARSED_LIMIT = 4096;

function cachedParse(text: string): ParsedVersion | null {
  let v = parsed.get(text);
  if (v === undefined) {
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    v = parseVersion(text) ?? null;
    parsed.set(text, v);
  }
  return v;
}

/**
 * Compares two versions under PEP 440: negative, zero or positive. A string that is not a
 * version sorts before every version (and among such strings by code units), so the order stays
 * total; the schema and the ledger refuse such versions before they reach a comparison.
 *
 * @example compareVersions('0.5.22rc1', '0.5.22') < 0; compareVersions('v0.5.22', '0.5.22') === 0
 */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = cachedParse(a);
  const y = cachedParse(b);
  if (!x || !y) return x ? 1 : y ? -1 : a < b ? -1 : 1;
  return compareParsed(x, y);
}

/**
 * Whether a version seen on a machine is the pinned one: PEP 440 equality with the local part
 * ignored, as engine wheels carry build tags (`0.31.0+cu130` is the 0.31.0 release; `0.31.0rc1`
 * is not). Two strings that are not versions are the same only when equal.
 */
export function samePublicVersion(found: string, pinned: string): boolean {
  if (found === pinned) return true;
  const x = cachedParse(found);
  const y = cachedParse(pinned);
  if (!x || !y) return false;
  return compareParsed({ ...x, local: undefined }, { ...y, local: undefined }) === 0;
}

/** The release line (`major.minor`) a version is on: `0.31.0` → `0.31`, `v0.5.22rc1` → `0.5`. */
export function lineOf(version: string): string {
  const v = cachedParse(version);
  if (!v) return version.split('.').slice(0, 2).join('.');
  return [v.release[0] ?? 0, v.release[1] ?? 0].join('.');
}
