/** Numeric components of a PEP 440-style release (`0.31.0rc1` → [0, 31, 0]); suffixes are ignored. */
function releaseParts(version: string): number[] {
  const m = /^\d+(\.\d+)*/.exec(version);
  return m ? m[0].split('.').map(Number) : [];
}

/** Compares two versions by their release numbers: negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const x = releaseParts(a);
  const y = releaseParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The release line (`major.minor`) a version is on: `0.31.0` → `0.31`. */
export function lineOf(version: string): string {
  return releaseParts(version).slice(0, 2).join('.');
}
