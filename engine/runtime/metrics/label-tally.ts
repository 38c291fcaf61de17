/**
 * A prom-client counter with one label whose hot path is a plain number: `add` bumps a tally
 * kept per label value, and the counter takes what was added since the last scrape when it is
 * collected. prom-client's own `inc({label})` hashes and validates the labels on every call
 * (its `labels()` child only binds them, and hashes again); a lookup bumps three of these.
 * The exposition is the same counter (type counter, monotonic, one series per value seen).
 *
 * Bounded: the label's values are the finite sets the service uses (outcomes, tiers, miss
 * reasons); past `limit` distinct values the rest are counted under `other`.
 */
import { Counter, type Registry } from 'prom-client';

interface Tally {
  added: number;
  reported: number;
}

export class LabelTally<L extends string> {
  readonly counter: Counter<L>;
  private readonly tallies = new Map<string, Tally>();

  constructor(options: { name: string; help: string; label: L; registers: Registry[] }, readonly limit = 64) {
    const tallies = this.tallies;
    const label = options.label;
    this.counter = new Counter<L>({
      name: options.name,
      help: options.help,
      labelNames: [label],
      registers: options.registers,
      collect() {
        for (const [value, t] of tallies) {
          if (t.added === t.reported) continue;
          this.inc({ [label]: value } as Partial<Record<L, string>>, t.added - t.reported);
          t.reported = t.added;
        }
      },
    });
  }

  /** Counts `n` (default 1) under the label value `value`. */
  add(value: string, n = 1): void {
    let t = this.tallies.get(value);
    if (t === undefined) {
      const key = this.tallies.size < this.limit ? value : 'other';
      t = this.tallies.get(key) ?? { added: 0, reported: 0 };
      this.tallies.set(key, t);
    }
    t.added += n;
  }
}
