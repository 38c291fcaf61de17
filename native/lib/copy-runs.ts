/** Copy plans: scattered (dst, src, len) runs, with contiguous neighbours merged into one copy. */

export interface CopyRun {
  /** Byte offset in the destination. */
  dst: number;
  /** Byte offset in the source. */
  src: number;
  len: number;
}

/**
 * Merges runs that continue each other in both source and destination, after ordering by
 * source offset: each merge saves one ~2.4 µs driver enqueue.
 *
 * @example coalesceRuns([{dst:0,src:0,len:4},{dst:4,src:4,len:4}]) // [{dst:0,src:0,len:8}]
 */
export function coalesceRuns(runs: readonly CopyRun[]): CopyRun[] {
  const sorted = [...runs].filter((r) => r.len > 0).sort((a, b) => a.src - b.src || a.dst - b.dst);
  const out: CopyRun[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && last.src + last.len === r.src && last.dst + last.len === r.dst) last.len += r.len;
    else out.push({ ...r });
  }
  return out;
}

/** Packs runs as [dst, src, len]* for one native call. */
export function packRuns(runs: readonly CopyRun[]): Float64Array {
  const packed = new Float64Array(runs.length * 3);
  runs.forEach((r, i) => packed.set([r.dst, r.src, r.len], i * 3));
  return packed;
}

/**
 * Splits runs so none crosses a boundary on one side (`src` or `dst`): a copy may not span two
 * separately registered host ranges (cuMemHostRegister chunks), so runs are cut at their edges.
 * `boundaries` are byte offsets, ascending.
 */
export function splitRuns(runs: readonly CopyRun[], boundaries: readonly number[], side: 'src' | 'dst'): CopyRun[] {
  if (boundaries.length === 0) return [...runs];
  const out: CopyRun[] = [];
  for (const run of runs) {
    let { dst, src, len } = run;
    while (len > 0) {
      const at = side === 'src' ? src : dst;
      const edge = boundaries.find((b) => b > at);
      const take = edge === undefined ? len : Math.min(len, edge - at);
      out.push({ dst, src, len: take });
      dst += take;
      src += take;
      len -= take;
    }
  }
  return out;
}
