/**
 * The benchmark convention: a human table, then one last line of JSON
 * `{"bench":..., "results":[{"name","unit","ours","peer","peerName","ratio","target"}]}`.
 * `ratio > 1` always means ours is better, whatever the unit's direction.
 */
export interface BenchResult {
  name: string;
  unit: string;
  ours: number;
  peer: number;
  peerName: string;
  ratio: number;
  /** The ratio (or absolute bound, said in `name`) the issue asks for. */
  target: number | string;
}

/** Ratio for a cost (lower is better: seconds, ms). */
export const costRatio = (ours: number, peer: number): number => (ours === 0 ? Infinity : peer / ours);
/** Ratio for a rate (higher is better: GB/s, IOPS). */
export const rateRatio = (ours: number, peer: number): number => (peer === 0 ? Infinity : ours / peer);

export function printReport(bench: string, results: BenchResult[], out: (s: string) => void = (s) => process.stdout.write(s)): void {
  const rows = results.map((r) => [r.name, r.unit, fmt(r.ours), fmt(r.peer), r.peerName, fmt(r.ratio), String(r.target)]);
  const header = ['name', 'unit', 'ours', 'peer', 'peer is', 'ratio', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  out(`${bench}\n${line(header)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
  out(`${JSON.stringify({ bench, results })}\n`);
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}
