/**
 * Grant secrets (16 random bytes as hex) drawn from the CSPRNG in batches: one `randomBytes`
 * call per `batch` grants instead of one per ready ticket (each call costs microseconds and a
 * getpid on the lookup's path). Every byte is used once; the batch is dropped when spent.
 */
import { randomBytes } from 'node:crypto';

export const GRANT_BYTES = 16;

export class GrantSource {
  private pool: Buffer = Buffer.alloc(0);
  private at = 0;

  constructor(private readonly batch = 256, private readonly draw: (size: number) => Buffer = randomBytes) {
    if (!Number.isSafeInteger(batch) || batch < 1) throw new RangeError(`batch must be a positive integer, got ${batch}`);
  }

  next(): string {
    if (this.at + GRANT_BYTES > this.pool.length) {
      this.pool = this.draw(GRANT_BYTES * this.batch);
      this.at = 0;
    }
    const grant = this.pool.toString('hex', this.at, this.at + GRANT_BYTES);
    // Spent bytes are overwritten, so the pool never holds a grant already handed out.
    this.pool.fill(0, this.at, this.at + GRANT_BYTES);
    this.at += GRANT_BYTES;
    return grant;
  }
}

/** The Manager's one source (grants are per ticket, whichever session holds it). */
export const grants = new GrantSource();
