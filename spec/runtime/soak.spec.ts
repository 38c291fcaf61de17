import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ManagerClient, OPCODE } from '../../engine/runtime/index.js';
import { NS, blockBytes, engineClient, lookupBody, pageFile, startManager, tempDir } from './support.js';

const BLOCK = 64 * 1024;
const MiB = 1024 * 1024;
const CLIENTS = 64;
/** Short here; `npm run bench -- runtime` runs the long soak. */
const SECONDS = Number(process.env['ORBITKV_SOAK_S'] ?? 3);

/** A wait that cannot outlast the spec silently: past `ms` it fails naming what it waited for. */
async function within<T>(ms: number, what: () => string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what()}`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const rss = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};

describe('runtime: a bounded soak of 64 clients against a real Manager', function () {
  this.timeout(120_000);
  it('every client is served; the Manager grows by no more than its tiers plus 64 MiB; nothing is left held once they go', async () => {
    const dram = 16 * MiB;
    const ssd = 16 * MiB;
    const m = await startManager(['--dram', `${dram}`, '--ssd', tempDir('soak'), '--ssd-size', `${ssd}`, '--block-size', '64k', '--records', '512']);
    const started = Date.now();
    while (!m.logs.some((l) => l.event === 'ssd-preallocated')) {
      assert.ok(Date.now() - started < 30_000, `no ssd-preallocated log within 30 s; the Manager said: ${m.stderr().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const baseline = rss(m.child.pid!);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(m.child.pid!))), 100);
    // On a failure nothing of the spec may keep the process alive: the sampler stops and every
    // client's socket goes (the Manager is killed by the suite's cleanup).
    const opened: ManagerClient[] = [];
    try {
      const deadline = Date.now() + SECONDS * 1000;
      const rounds = await Promise.all(
        Array.from({ length: CLIENTS }, async (_, id) => {
          const pages = pageFile(4, BLOCK);
          const c = await within(30_000, () => `client ${id} connect, handshake and page registration (fd deposit)`, engineClient(m, pages, 4, BLOCK));
          opened.push(c);
          let n = 0;
          let stored = 0;
          // Until the deadline, and past it (by at most 30 s) for a client that came late and has
          // nothing stored yet: on a loaded machine the last registrations can end after it.
          while (Date.now() < deadline || (stored === 0 && Date.now() < deadline + 30_000)) {
            const hashes = [`c${id}-${n}-a`, `c${id}-${n}-b`];
            pages.write(0, blockBytes(hashes[0]!, BLOCK));
            pages.write(1, blockBytes(hashes[1]!, BLOCK));
            const saved = (await within(30_000, () => `client ${id} save ${n}`, c.request(OPCODE.save, { namespace: NS, hashes, pages: [0, 1] }))).body.blocks as string[];
            // Under this load a save may find every DRAM slot busy: it says so, and the next one tries again.
            assert.ok(saved.every((b) => b === 'stored' || b === 'dram-full' || b.startsWith('staged:')), JSON.stringify(saved));
            stored += saved.filter((b) => b === 'stored').length;
            const t = await within(30_000, () => `client ${id} lookup ${n}`, c.request(OPCODE.lookup, lookupBody([...hashes, `never-${id}-${n}`])));
            if (t.body.state === 'ready') {
              const r = await within(30_000, () => `client ${id} restore ${n}`, c.request(OPCODE.restore, { ticket: t.body.ticket, pages: Array.from({ length: t.body.boundary as number }, (_, i) => 2 + i) }));
              assert.ok(['done', 'failed'].includes(r.body.state as string), JSON.stringify(r.body));
              if (r.body.state === 'done') assert.ok(pages.read(2).equals(blockBytes(hashes[0]!, BLOCK)));
            }
            n++;
          }
          await within(30_000, () => `client ${id} close`, c.close());
          return stored;
        }),
      );
      peak = Math.max(peak, rss(m.child.pid!));
      assert.ok(rounds.every((n) => n > 0), `every client had blocks stored: ${rounds.join(',')}`);
      const watcher = await ManagerClient.connect(m.socket);
      await watcher.request(OPCODE.operator, {});
      let status: { sessions: unknown[]; tiers: { pinned: number }; inFlight: { tickets: number; saves: number; restores: number } };
      const draining = Date.now();
      for (;;) {
        status = (await within(30_000, () => 'status', watcher.request(OPCODE.status, {}))).body as typeof status;
        if (status.sessions.length === 0) break;
        assert.ok(Date.now() - draining < 30_000, `sessions not drained within 30 s of their clients leaving: ${JSON.stringify(status).slice(0, 3000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual([status.tiers.pinned, status.inFlight.tickets, status.inFlight.saves, status.inFlight.restores], [0, 0, 0, 0]);
      const records = (await watcher.request(OPCODE.requests, {})).body.records as unknown[];
      assert.ok(records.length <= 512, `${records.length} records kept (bound 512)`);
      await watcher.close();
      const growth = peak - baseline;
      assert.ok(growth <= dram + ssd + 64 * MiB, `RSS grew ${(growth / MiB).toFixed(1)} MiB over ${(baseline / MiB).toFixed(1)} MiB at start (bound: tiers ${(dram + ssd) / MiB} MiB + 64 MiB)`);
      assert.equal(await m.stop(), 0);
    } finally {
      clearInterval(sampler);
      for (const c of opened) c.socket.destroy();
    }
  });
});
