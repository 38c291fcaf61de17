/**
 * The cache keys of recently seen block hashes. An engine asks about the same request's chain
 * at every scheduler step until it is scheduled (and chains share their prefixes), so most of a
 * lookup's keys were computed moments ago; a hit returns exactly what `BlockCache.key` returned
 * for the same namespace and hash. Kept per namespace (a chain looks its namespace up once, then
 * each hash by itself: no namespace-and-hash string built per block). Bounded: past `capacity`
 * entries in all the oldest is dropped (from the namespace seen first).
 */
import { BlockCache } from '../catalog/index.js';

export class KeyMemo {
  /** Namespace → (block hash → key), each in insertion order. */
  private readonly spaces = new Map<string, Map<string, string>>();
  private count = 0;

  constructor(readonly capacity = 8192, private readonly derive: (namespace: string, blockHash: string) => string = BlockCache.key) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  /**
   * The keys of a chain of block hashes in one namespace (frozen: the same array may be handed
   * to every lookup of the chain). A chain that is the same array as the last one asked about,
   * in the same namespace (a connection's ChainMemo hands a repeated chain back as the same
   * frozen array), gets the same keys without a lookup per hash: keys depend on nothing else.
   */
  chain(namespace: string, hashes: readonly string[]): readonly string[] {
    // Only frozen chains are remembered (below), so the same array is still the same hashes.
    if (hashes === this.lastHashes && namespace === this.lastNamespace) return this.lastKeys;
    const out = new Array<string>(hashes.length);
    const space = this.space(namespace);
    for (let i = 0; i < hashes.length; i++) out[i] = this.lookup(space, namespace, hashes[i]!);
    Object.freeze(out);
    // Only a frozen chain is remembered: its hashes cannot change under the keys kept for it.
    if (Object.isFrozen(hashes)) {
      this.lastHashes = hashes;
      this.lastNamespace = namespace;
      this.lastKeys = out;
    }
    return out;
  }

  /** The last frozen chain asked about, its namespace and its keys (one chain: bounded). */
  private lastHashes: readonly string[] | null = null;
  private lastNamespace = '';
  private lastKeys: readonly string[] = [];

  key(namespace: string, blockHash: string): string {
    return this.lookup(this.space(namespace), namespace, blockHash);
  }

  get size(): number {
    return this.count;
  }

  private space(namespace: string): Map<string, string> {
    let space = this.spaces.get(namespace);
    if (space === undefined) {
      space = new Map();
      this.spaces.set(namespace, space);
    }
    return space;
  }

  private lookup(space: Map<string, string>, namespace: string, blockHash: string): string {
    let key = space.get(blockHash);
    if (key === undefined) {
      key = this.derive(namespace, blockHash);
      if (this.count >= this.capacity) {
        this.dropOldest();
        // The drop may have emptied (and let go of) this very namespace: it is filled again.
        if (this.spaces.get(namespace) !== space) this.spaces.set(namespace, space);
      }
      space.set(blockHash, key);
      this.count++;
    }
    return key;
  }

  private dropOldest(): void {
    for (const [namespace, space] of this.spaces) {
      const oldest = space.keys().next();
      if (!oldest.done) {
        space.delete(oldest.value);
        this.count--;
      }
      if (space.size === 0) this.spaces.delete(namespace);
      if (!oldest.done) return;
    }
  }
}
