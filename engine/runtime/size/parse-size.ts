/**
 * Byte sizes as operators write them: `8gb`, `512MiB`, `64k`, `1048576`. Decimal and binary
 * prefixes both mean powers of 1024 (what `free -h` and most caches' flags mean); a fraction
 * is allowed when the result is a whole number of bytes.
 */
const UNITS: Record<string, number> = { '': 1, b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 };

/** The size in bytes, or undefined when the text is not a size. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(i?b)?\s*$/i.exec(text);
  if (!match) return undefined;
  const [, number, prefix, suffix] = match;
  if (prefix === '' && suffix !== undefined && suffix.toLowerCase() === 'ib') return undefined;
  const bytes = Number(number) * UNITS[prefix!.toLowerCase()]!;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A size as a short binary-prefixed string (`1 GiB`, `512 MiB`, `4096 B`). */
export function formatSize(bytes: number): string {
  for (const [unit, scale] of [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (bytes >= scale) return `${Number((bytes / scale).toFixed(2))} ${unit}`;
  }
  return `${bytes} B`;
}
