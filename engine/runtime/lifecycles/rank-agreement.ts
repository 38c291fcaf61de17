/**
 * Rank agreement for one engine request: every rank's ticket reports how many blocks it
 * matched; once all `worldSize` ranks have, each is told the smallest. A rank that ends
 * before agreement (timed out, cancelled) makes the others defer: no rank loads a boundary
 * another rank cannot.
 */
import { NameTable } from '../collections/index.js';

export interface RankMember {
  agreed(boundary: number): void;
  defer(): void;
}

interface Group {
  worldSize: number;
  members: Map<number, RankMember>;
  reports: Map<number, number>;
}

export class RankAgreement {
  /** Groups by request id: a NameTable, not a Map (a group is added and deleted at every request of a tensor-parallel engine; see IdTable). */
  private readonly groups = new NameTable<Group>();

  /** Adds a rank's ticket; a problem when the rank is already waiting or the world size differs. */
  join(request: string, rank: number, worldSize: number, member: RankMember): 'duplicate-rank' | 'world-size-mismatch' | null {
    let g = this.groups.get(request);
    if (!g) this.groups.set(request, (g = { worldSize, members: new Map(), reports: new Map() }));
    if (g.worldSize !== worldSize) return 'world-size-mismatch';
    if (g.members.has(rank)) return 'duplicate-rank';
    g.members.set(rank, member);
    return null;
  }

  report(request: string, rank: number, matched: number): void {
    const g = this.groups.get(request);
    if (!g || !g.members.has(rank)) return;
    g.reports.set(rank, matched);
    if (g.reports.size < g.worldSize) return;
    this.groups.delete(request);
    const boundary = Math.min(...g.reports.values());
    for (const m of g.members.values()) m.agreed(boundary);
  }

  /** A rank ended before agreement: the rest defer. */
  leave(request: string, rank: number): void {
    const g = this.groups.get(request);
    if (!g || !g.members.delete(rank)) return;
    this.groups.delete(request);
    for (const m of g.members.values()) m.defer();
  }

  /** Whether ranks of `request` are waiting for agreement. */
  has(request: string): boolean {
    return this.groups.has(request);
  }

  get open(): number {
    return this.groups.size;
  }
}
