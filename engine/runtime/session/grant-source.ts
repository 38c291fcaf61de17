/**
 * Grant secrets (16 random bytes) drawn from the CSPRNG in batches: one `randomBytes` call per
 * `batch` grants instead of one per ready ticket (each call costs microseconds and a getpid on the
 * lookup's path). Every byte is used once; the batch is dropped when spent.
 *
 * A grant is kept as a key: its 16 bytes as 8 UTF-16 code units (two bytes each, the first the
 * high one), a string a table holds and compares cheaply. A binary LOOKUP reply carries the bytes
 * (`take` writes them straight into it from the key, as `writeGrant` does for a grant made before), a JSON one their 32 lowercase hex digits (`grantHex`), and
 * a RESTORE names the grant by those digits (`grantKey` turns them back). All of it in JavaScript:
 * the binary reply's grant costs the lookup's path no call into Node's C++ (a string made from
 * hex and written back as hex were two, and each is a cold call at the rates an engine asks).
 */
import { randomBytes } from 'node:crypto';

export const GRANT_BYTES = 16;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const HEX_DIGITS = /^[0-9a-f]{32}$/;

/** The 32 lowercase hex digits of a grant's key. */
export function grantHex(key: string): string {
  let hex = '';
  for (let i = 0; i < key.length; i++) {
    const u = key.charCodeAt(i);
    hex += HEX[u >> 8]! + HEX[u & 0xff]!;
  }
  return hex;
}

/** The key of a grant given as 32 lowercase hex digits (as a JSON reply carries it), or null if it is not. */
export function grantKey(hex: string): string | null {
  if (!HEX_DIGITS.test(hex)) return null;
  const units: number[] = [];
  for (let i = 0; i < 32; i += 4) units.push(Number.parseInt(hex.slice(i, i + 4), 16));
  return String.fromCharCode(...units);
}

/** Writes a grant's 16 bytes (from its key) into `out` at `at`. */
export function writeGrant(key: string, out: Uint8Array, at: number): void {
  for (let i = 0; i < 8; i++) {
    const u = key.charCodeAt(i);
    out[at + 2 * i] = u >> 8;
    out[at + 2 * i + 1] = u & 0xff;
  }
}

export class GrantSource {
  private pool: Buffer = Buffer.alloc(0);
  private at = 0;

  constructor(private readonly batch = 256, private readonly draw: (size: number) => Buffer = randomBytes) {
    if (!Number.isSafeInteger(batch) || batch < 1) throw new RangeError(`batch must be a positive integer, got ${batch}`);
  }

  /** A new grant's key; with `out`, its 16 bytes are copied there at `at` too. */
  take(out?: Uint8Array, at = 0): string {
    if (this.at + GRANT_BYTES > this.pool.length) {
      this.pool = this.draw(GRANT_BYTES * this.batch);
      this.at = 0;
    }
    const p = this.pool;
    const from = this.at;
    const key = String.fromCharCode(
      (p[from]! << 8) | p[from + 1]!, (p[from + 2]! << 8) | p[from + 3]!, (p[from + 4]! << 8) | p[from + 5]!, (p[from + 6]! << 8) | p[from + 7]!,
      (p[from + 8]! << 8) | p[from + 9]!, (p[from + 10]! << 8) | p[from + 11]!, (p[from + 12]! << 8) | p[from + 13]!, (p[from + 14]! << 8) | p[from + 15]!,
    );
    if (out !== undefined) writeGrant(key, out, at);
    // Spent bytes are overwritten, so the pool never holds a grant already handed out.
    for (let i = 0; i < GRANT_BYTES; i++) p[from + i] = 0;
    this.at += GRANT_BYTES;
    return key;
  }

  /** A new grant as 32 hex digits. */
  next(): string {
    return grantHex(this.take());
  }
}

/** The Manager's one source (grants are per ticket, whichever session holds it). */
export const grants = new GrantSource();
