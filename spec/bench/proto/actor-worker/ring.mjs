// A single-producer single-consumer ring of fixed 4 x Int32 records in a SharedArrayBuffer.
// ctl[0] = head (written by the producer), ctl[1] = tail (written by the consumer), ctl[2] = consumer sleeping flag.
export const REC = 4;
export class Ring {
  constructor(sab, cap) { this.ctl = new Int32Array(sab, 0, 4); this.data = new Int32Array(sab, 16, cap * REC); this.cap = cap; }
  static create(cap) { return new SharedArrayBuffer(16 + cap * REC * 4); }
  push(a, b, c, d) {
    const h = Atomics.load(this.ctl, 0), t = Atomics.load(this.ctl, 1);
    if (h - t >= this.cap) return false;
    const i = (h % this.cap) * REC; const x = this.data;
    x[i] = a; x[i + 1] = b; x[i + 2] = c; x[i + 3] = d;
    Atomics.store(this.ctl, 0, h + 1);
    return true;
  }
  wake() { if (Atomics.load(this.ctl, 2) === 1) Atomics.notify(this.ctl, 0); }
  drain(fn) {
    const h = Atomics.load(this.ctl, 0); let t = Atomics.load(this.ctl, 1); const x = this.data;
    for (; t < h; t++) { const i = (t % this.cap) * REC; fn(x[i], x[i + 1], x[i + 2], x[i + 3]); }
    Atomics.store(this.ctl, 1, t);
    return h;
  }
}
