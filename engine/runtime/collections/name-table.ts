/**
 * A table from strings to values that allocates only when it grows, never as it churns: IdTable's
 * reason (see there: a churned Map's rebuilt tables keep what they held alive through scavenges
 * once one of them is promoted) for tables keyed by a name, such as the rank agreement's groups by
 * engine request id (each group holds its ranks' tickets, added and deleted at every request of a
 * tensor-parallel engine).
 *
 * The storage is OpenTable's. Names are hashed here (FNV-1a over their UTF-16 code units): a
 * string's own hash is V8's, and not reachable from JavaScript.
 */
import { OpenTable } from './open-table.js';

/** FNV-1a, 32 bits, over the string's UTF-16 code units. */
function hashName(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class NameTable<V> extends OpenTable<string, V> {
  private declare slotNames: (string | undefined)[];

  constructor(capacity = 8) {
    super(capacity);
  }

  protected makeKeys(slots: number): void {
    this.slotNames = new Array<string | undefined>(slots).fill(undefined);
  }

  protected keyAt(i: number): string | undefined {
    return this.slotNames[i];
  }

  protected putKey(i: number, name: string | undefined): void {
    this.slotNames[i] = name;
  }

  protected hash(name: string): number {
    return hashName(name);
  }

  protected accepts(name: string): boolean {
    return typeof name === 'string';
  }

  protected refuse(name: string): Error {
    return new TypeError(`a name must be a string, got ${typeof name}`);
  }
}
