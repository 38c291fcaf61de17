/**
 * A table from positive integer ids to values whose storage is allocated only when it grows,
 * never when it churns: for the tables a lookup adds to and deletes from (the service's open
 * tickets, a session's tickets and their grants).
 *
 * Why not a Map. V8 rebuilds a Map's hash table into a new one each time deletions and inserts
 * have filled it (every few dozen lookups at a steady few tickets open), and the table it leaves
 * keeps a pointer to its successor, for iterators that were walking it, and the entries it had.
 * Once one such table has been promoted to the old generation (one that lived across two
 * young-generation collections), it is a dead old object that points to the young table after
 * it, so the scavenger keeps that table, and every ticket it holds, alive and promotes them; each
 * table after it then does the same for its successor. Every ticket, with its probe, its reply and
 * its grant, was promoted: on the dev VM at 10,000 lookups/s, 260-330 KB a scavenge, every 77 ms,
 * with pauses of 1.0-1.8 ms against 0.3-0.4 ms while the same Manager answered the bare echo
 * (spec/bench/results/runtime-map-nepotism-dev-vm.txt), and the old generation filled towards a
 * mark-compact every 4 s. Here the storage is two arrays made once per size: a deleted entry's
 * slot is emptied in place and nothing points from an old array to a newer one.
 *
 * The storage is OpenTable's; here the ids are kept in a Float64Array (0: an empty slot), which
 * holds any safe integer without a heap number per id.
 */
import { OpenTable } from './open-table.js';

export class IdTable<V> extends OpenTable<number, V> {
  private declare slotIds: Float64Array;

  constructor(capacity = 8) {
    super(capacity);
  }

  protected makeKeys(slots: number): void {
    this.slotIds = new Float64Array(slots);
  }

  protected keyAt(i: number): number | undefined {
    const id = this.slotIds[i]!;
    return id === 0 ? undefined : id;
  }

  protected putKey(i: number, id: number | undefined): void {
    this.slotIds[i] = id ?? 0;
  }

  protected hash(id: number): number {
    return id >>> 0;
  }

  protected accepts(id: number): boolean {
    return Number.isSafeInteger(id) && id >= 1;
  }

  protected refuse(id: number): Error {
    return new RangeError(`an id must be a positive safe integer, got ${id}`);
  }
}
