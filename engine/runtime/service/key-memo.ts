/**
 * The cache keys of recently seen block hashes. An engine asks about the same request's chain
 * at every scheduler step until it is scheduled (and chains share their prefixes), so most of a
 * lookup's keys were computed moments ago; a hit returns exactly what `BlockCache.key` returned
 * for the same namespace and hash. Bounded: past `capacity` entries the oldest is dropped.
 */
import { BlockCache } from '../catalog/index.js';

export class KeyMemo {
  private readonly keys = new Map<string, string>();

  constructor(readonly capacity = 8192, private readonly derive: (namespace: string, blockHash: string) => string = BlockCache.key) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /** The keys of a chain of block hashes in one namespace. */
  chain(namespace: string, hashes: readonly string[]): string[] {
    const out = new Array<string>(hashes.length);
    for (let i = 0; i < hashes.length; i++) out[i] = this.key(namespace, hashes[i]!);
    return out;
  }

  key(namespace: string, blockHash: string): string {
    // The namespace id and the hash never contain a newline (the same separator the key hashes).
    const input = `${namespace}\n${blockHash}`;
    let key = this.keys.get(input);
    if (key === undefined) {
      key = this.derive(namespace, blockHash);
      if (this.keys.size >= this.capacity) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(input, key);
    }
    return key;
  }

  get size(): number {
    return this.keys.size;
  }
}
