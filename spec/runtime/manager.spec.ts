import { TICKET_ACTORS } from '../../engine/runtime/service/index.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { ManagerClient, OPCODE } from '../../engine/runtime/index.js';
import { NS, blockBytes, engineClient, lookupBody, pageFile, startManager, tempDir, type ManagerProcess } from './support.js';

const BLOCK = 64 * 1024;

for (const actors of TICKET_ACTORS) {
  describe(`runtime: a real Manager process (DRAM and SSD tiers) (ticket actors: ${actors})`, function () {
    this.timeout(60_000);
    let m: ManagerProcess;
    let ssdDir: string;

    before(async () => {
      ssdDir = tempDir('ssd');
      m = await startManager(['--dram', '1m', '--ssd', ssdDir, '--ssd-size', '4m', '--block-size', '64k', '--lease-ms', '800', '--ticket-actors', actors]);
    });
    after(async () => {
      if (m.child.exitCode === null) await m.stop();
    });

    it('saves blocks from pages, finds the longest stored prefix and restores it into other pages with completion flags', async () => {
      const pages = pageFile(8, BLOCK);
      for (let i = 0; i < 3; i++) pages.write(i, blockBytes(`a${i}`, BLOCK));
      const c = await engineClient(m, pages, 8, BLOCK);
      const saved = await c.request(OPCODE.save, { namespace: NS, hashes: ['a0', 'a1', 'a2'], pages: [0, 1, 2] });
      assert.equal(saved.opcode, OPCODE.saveResult, JSON.stringify(saved.body));
      assert.deepEqual(saved.body.blocks, ['stored', 'stored', 'stored']);
      const again = await c.request(OPCODE.save, { namespace: NS, hashes: ['a0'], pages: [0] });
      assert.deepEqual(again.body.blocks, ['deduplicated']);

      const look = await c.request(OPCODE.lookup, lookupBody(['a0', 'a1', 'a2', 'zz', 'a3']));
      assert.equal(look.opcode, OPCODE.lookupResult);
      assert.equal(look.body.state, 'ready');
      assert.equal(look.body.boundary, 3);
      assert.deepEqual(look.body.tiers, { dram: 3, ssd: 0 });

      const restored = await c.request(OPCODE.restore, { ticket: look.body.ticket, pages: [5, 6, 7] });
      assert.equal(restored.opcode, OPCODE.restoreResult, JSON.stringify(restored.body));
      assert.equal(restored.body.state, 'done');
      for (let i = 0; i < 3; i++) {
        assert.ok(pages.read(5 + i).equals(blockBytes(`a${i}`, BLOCK)), `page ${5 + i} holds block a${i}`);
        assert.equal(pages.flag(5 + i), 1);
      }
      assert.equal(pages.flag(4), 0);
      await c.close();
      // Its socket was read into the Manager's one shared read buffer, not a new ArrayBuffer per read.
      const opened = m.logs.filter((l) => l['event'] === 'session-open');
      assert.ok(opened.length > 0);
      assert.deepEqual(opened.map((l) => l['readBuffer']), opened.map(() => 'shared'));
    });

    it('CANCEL of a ticket whose restore is in flight cancels that restore (read in one chunk with it: answered restoring, the restore then cancelled)', async () => {
      const pages = pageFile(8, BLOCK);
      for (let i = 0; i < 3; i++) pages.write(i, blockBytes(`k${i}`, BLOCK));
      const c = await engineClient(m, pages, 8, BLOCK);
      assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['k0', 'k1', 'k2'], pages: [0, 1, 2] })).body.blocks, ['stored', 'stored', 'stored']);
      const look = await c.request(OPCODE.lookup, lookupBody(['k0', 'k1', 'k2']));
      assert.equal(look.body.state, 'ready');
      // Both frames in one write: the Manager reads them together, so the CANCEL meets the restore
      // before any of its I/O has completed.
      c.socket.cork();
      const restoring = c.request(OPCODE.restore, { ticket: look.body.ticket, pages: [5, 6, 7] });
      const cancelling = c.request(OPCODE.cancel, { ticket: look.body.ticket });
      c.socket.uncork();
      const [restored, cancelled] = await Promise.all([restoring, cancelling]);
      assert.equal(cancelled.opcode, OPCODE.cancelled, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.state, 'restoring');
      assert.equal(restored.opcode, OPCODE.restoreResult, JSON.stringify(restored.body));
      assert.equal(restored.body.state, 'cancelled');
      await c.close();
    });

    it('keeps namespaces apart: the same hash under another layout is a miss', async () => {
      const pages = pageFile(2, BLOCK);
      const c = await engineClient(m, pages, 2, BLOCK);
      pages.write(0, blockBytes('ns', BLOCK));
      await c.request(OPCODE.save, { namespace: NS, hashes: ['n0'], pages: [0] });
      const other = await c.request(OPCODE.lookup, { ...lookupBody(['n0']), namespace: { ...NS, layout: 'sglang:mla' } });
      assert.equal(other.body.state, 'miss');
      const same = await c.request(OPCODE.lookup, lookupBody(['n0']));
      assert.equal(same.body.state, 'ready');
      await c.close();
    });

    it('ranks agree: the smallest boundary wins; a missing rank makes all defer (timed out, never a miss)', async () => {
      const pages = pageFile(4, BLOCK);
      const c = await engineClient(m, pages, 4, BLOCK);
      for (let i = 0; i < 3; i++) pages.write(i, blockBytes(`r${i}`, BLOCK));
      await c.request(OPCODE.save, { namespace: NS, hashes: ['r0', 'r1', 'r2'], pages: [0, 1, 2] });
      const r0 = c.request(OPCODE.lookup, lookupBody(['r0', 'r1', 'r2'], { request: 'tp', rank: 0, worldSize: 2 }));
      const r1 = c.request(OPCODE.lookup, lookupBody(['r0', 'r1', 'x'], { request: 'tp', rank: 1, worldSize: 2 }));
      const [a, b] = await Promise.all([r0, r1]);
      assert.equal(a.body.boundary, 2);
      assert.equal(b.body.boundary, 2);
      assert.equal(a.body.matched, 3);

      const started = Date.now();
      const lone = await c.request(OPCODE.lookup, lookupBody(['r0'], { request: 'tp2', rank: 0, worldSize: 2, deadlineMs: 300 }));
      assert.equal(lone.body.state, 'timedOut');
      assert.ok(Date.now() - started >= 250, 'it waited for the deadline');
      const records = await c.request(OPCODE.requests, { request: 'tp2' });
      const rec = (records.body.records as { state: string; firstMiss: { reason: string } }[])[0]!;
      assert.equal(rec.state, 'timedOut');
      assert.equal(rec.firstMiss.reason, 'timed-out');
      await c.close();
    });

    it('a ready ticket holds its blocks until released, restored or its lease expires', async () => {
      const pages = pageFile(2, BLOCK);
      const c = await engineClient(m, pages, 2, BLOCK);
      pages.write(0, blockBytes('l0', BLOCK));
      await c.request(OPCODE.save, { namespace: NS, hashes: ['l0'], pages: [0] });
      const t1 = await c.request(OPCODE.lookup, lookupBody(['l0']));
      const released = await c.request(OPCODE.release, { ticket: t1.body.ticket });
      assert.equal(released.body.state, 'released');
      const gone = await c.request(OPCODE.restore, { ticket: t1.body.ticket, pages: [1] });
      assert.equal(gone.opcode, OPCODE.error);
      assert.equal(gone.body.code, 'OKV7107');
      const t2 = await c.request(OPCODE.lookup, lookupBody(['l0']));
      await new Promise((r) => setTimeout(r, 1000));
      const late = await c.request(OPCODE.restore, { ticket: t2.body.ticket, pages: [1] });
      assert.equal(late.body.code, 'OKV7107', 'the lease expired (800 ms)');
      const status = await c.request(OPCODE.status, {});
      assert.equal((status.body.tiers as { pinned: number }).pinned, 0, 'no block stays pinned');
      await c.close();
    });

    it('evicts by LRU when DRAM is full and serves evicted blocks from the SSD tier, checksum-verified', async () => {
      const pages = pageFile(20, BLOCK);
      const c = await engineClient(m, pages, 20, BLOCK);
      // 1 MiB of DRAM holds 16 blocks: 20 saves push the first ones out of DRAM (they stay on SSD).
      const hashes = Array.from({ length: 20 }, (_, i) => `e${i}`);
      hashes.forEach((h, i) => pages.write(i, blockBytes(h, BLOCK)));
      const saved = await c.request(OPCODE.save, { namespace: NS, hashes, pages: hashes.map((_, i) => i) });
      assert.ok((saved.body.blocks as string[]).every((b) => b === 'stored'), JSON.stringify(saved.body));
      const look = await c.request(OPCODE.lookup, lookupBody(hashes));
      assert.equal(look.body.boundary, 20, JSON.stringify(look.body));
      const tiers = look.body.tiers as { dram: number; ssd: number };
      assert.ok(tiers.ssd >= 4, `some blocks come from SSD: ${JSON.stringify(tiers)}`);
      const dest = pageFile(20, BLOCK);
      const d = await engineClient(m, dest, 20, BLOCK);
      const t = await d.request(OPCODE.lookup, lookupBody(hashes));
      const restored = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: hashes.map((_, i) => i) });
      assert.equal(restored.body.state, 'done', JSON.stringify(restored.body));
      hashes.forEach((h, i) => assert.ok(dest.read(i).equals(blockBytes(h, BLOCK)), h));
      await c.request(OPCODE.release, { ticket: look.body.ticket });
      await Promise.all([c.close(), d.close()]);
    });

    it('a pending lookup is named at once (LOOKUP_PENDING, same request id) and CANCEL of that ticket ends it cancelled; a ready one is answered directly, with a grant', async () => {
      const pages = pageFile(1, BLOCK);
      const c = await engineClient(m, pages, 1, BLOCK);
      const answer = c.request(OPCODE.lookup, lookupBody(['never'], { request: 'notice', worldSize: 2, deadlineMs: 20_000 }));
      for (let i = 0; i < 100 && c.notices.size === 0; i++) await new Promise((r) => setTimeout(r, 20));
      const [notice] = [...c.notices.values()];
      assert.equal(notice?.state, 'pending');
      assert.equal(typeof notice?.ticket, 'number');
      const cancelled = await c.request(OPCODE.cancel, { ticket: notice!.ticket });
      assert.equal(cancelled.body.state, 'cancelled');
      const result = await answer;
      assert.equal(result.opcode, OPCODE.lookupResult);
      assert.deepEqual([result.body.ticket, result.body.state], [notice!.ticket, 'cancelled']);
      pages.write(0, blockBytes('g0', BLOCK));
      await c.request(OPCODE.save, { namespace: NS, hashes: ['g0'], pages: [0] });
      const ready = await c.request(OPCODE.lookup, lookupBody(['g0']));
      assert.equal(ready.body.state, 'ready');
      assert.match(String(ready.body.grant), /^[0-9a-f]{32}$/);
      assert.equal(c.notices.size, 0, 'no notice is kept once its request is answered');
      await c.close();
    });

    it('a malformed request payload is answered with a code and the connection stays open', async () => {
      const pages = pageFile(1, BLOCK);
      const c = await engineClient(m, pages, 1, BLOCK);
      const bad = await c.request(OPCODE.lookup, { namespace: NS, hashes: 'nope' });
      assert.equal(bad.opcode, OPCODE.error);
      assert.equal(bad.body.code, 'OKV7105');
      const echo = await c.request(OPCODE.echo, { still: 'open' });
      assert.deepEqual(echo.body, { still: 'open' });
      await c.close();
    });

    it('refuses pages that are not a deposited, sealed memfd of the block size, each with its code', async () => {
      const { acceptedProfile } = await import('./support.js');
      const { openSync, closeSync } = await import('node:fs');
      const c = await ManagerClient.connect(m.socket);
      await c.hello(acceptedProfile());
      const byPath = await c.request(OPCODE.registerPages, { path: '/dev/shm/x', pageBytes: BLOCK, pages: 1, flagsOffset: BLOCK });
      assert.equal(byPath.body.code, 'OKV7105', 'a /dev/shm path is no longer a registration');
      const none = await c.request(OPCODE.registerPages, { pageBytes: BLOCK, pages: 1, layers: 1 });
      assert.equal(none.body.code, 'OKV7108');
      assert.match(String(none.body.message), /no-fd/);
      const wrongToken = await c.deposit(pageFile(1, BLOCK).fd, 'f'.repeat(32));
      assert.equal(wrongToken.code, 'OKV7112');
      assert.equal(wrongToken.reason, 'unknown-session');
      const plain = openSync(join(tempDir('plain'), 'pages'), 'w+', 0o600);
      try {
        const notMemfd = await c.registerMemfd(plain, { pageBytes: BLOCK, pages: 1, layers: 1 });
        assert.equal(notMemfd.body.code, 'OKV7108');
        assert.match(String(notMemfd.body.message), /not-memfd/);
      } finally {
        closeSync(plain);
      }
      const small = pageFile(1, BLOCK / 2);
      const wrongSize = await c.registerMemfd(small.fd, { pageBytes: BLOCK / 2, pages: 1, layers: 1 });
      assert.equal(wrongSize.body.code, 'OKV7108');
      assert.match(String(wrongSize.body.message), /page-size/);
      const layered = pageFile(2, BLOCK / 4, 4);
      const ok = await c.registerMemfd(layered.fd, { pageBytes: BLOCK / 4, pages: 2, layers: 4 });
      assert.equal(ok.opcode, OPCODE.pagesRegistered, JSON.stringify(ok.body));
      await c.close();
    });

    it('says where its ticket actors run, in its status and its serving log line, and which thread of its own the worker is', async () => {
      const { runCli } = await import('../../engine/cli/main.js');
      const { captureIo } = await import('../support/io.js');
      const io = captureIo();
      assert.equal(await runCli(['manager', 'status', '--socket', m.socket, '--format', 'json'], io), 0, io.stderr);
      const status = JSON.parse(io.stdout) as { ticketActors: string; ticketWorkerThread: number | null };
      assert.equal(status.ticketActors, actors);
      assert.match(m.stderr(), new RegExp(`"event":"serving".*"ticketActors":"${actors}"`));
      if (actors === 'main') return assert.equal(status.ticketWorkerThread, null);
      // A thread of the Manager's own process, other than its main thread (what top -H and ps -L list).
      assert.ok(Number.isSafeInteger(status.ticketWorkerThread) && status.ticketWorkerThread !== m.child.pid, String(status.ticketWorkerThread));
      assert.ok(existsSync(`/proc/${m.child.pid}/task/${status.ticketWorkerThread}`), `thread ${status.ticketWorkerThread} of pid ${m.child.pid}`);
      assert.match(m.stderr(), new RegExp(`"event":"serving".*"ticketWorkerThread":${status.ticketWorkerThread}`));
      const plain = captureIo();
      assert.equal(await runCli(['manager', 'status', '--socket', m.socket], plain), 0, plain.stderr);
      assert.match(plain.stdout, new RegExp(`ticket actors on a worker thread \\(thread ${status.ticketWorkerThread}\\)`));
    });
  });
}

describe('runtime: `orbitkv manager status` and `orbitkv requests` against a real Manager', function () {
  this.timeout(60_000);
  let m: ManagerProcess;
  before(async () => {
    m = await startManager(['--dram', '256k', '--block-size', '64k']);
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  it('status reports tiers, sessions and in-flight work; requests prints why a lookup missed', async () => {
    const { runCli } = await import('../../engine/cli/main.js');
    const { captureIo } = await import('../support/io.js');
    const pages = pageFile(1, BLOCK);
    const c = await engineClient(m, pages, 1, BLOCK);
    pages.write(0, blockBytes('s0', BLOCK));
    await c.request(OPCODE.save, { namespace: NS, hashes: ['s0'], pages: [0] });
    const t = await c.request(OPCODE.lookup, lookupBody(['s0', 'never-saved'], { request: 'cli-req' }));
    assert.equal(t.body.boundary, 1);

    const io = captureIo();
    assert.equal(await runCli(['manager', 'status', '--socket', m.socket, '--format', 'json'], io), 0, io.stderr);
    const status = JSON.parse(io.stdout) as { tiers: { dram: { slots: number; used: number }; ssd: unknown }; sessions: unknown[]; inFlight: { tickets: number } };
    assert.deepEqual(status.tiers.dram, { slots: 4, used: 1, bytes: 256 * 1024 });
    assert.equal(status.tiers.ssd, null);
    assert.equal(status.sessions.length, 1);
    assert.equal((status.sessions[0] as { pid: number }).pid, process.pid, 'the session names its peer pid (SO_PEERCRED)');
    assert.equal(status.inFlight.tickets, 1, 'the ready ticket is open');
    assert.deepEqual((status as unknown as { lookups: unknown }).lookups, { answeredAhead: 1, mismatched: 0 }, 'the settled lookup was answered ahead, as its actor then went');
    const plain = captureIo();
    assert.equal(await runCli(['manager', 'status', '--socket', m.socket], plain), 0, plain.stderr);
    assert.match(plain.stdout, /lookups answered ahead of their ticket actor: 1, each as its actor then went/);
    assert.equal((status as unknown as { ticketActors: string }).ticketActors, 'worker', 'the default');
    assert.match(plain.stdout, /ticket actors on a worker thread/);

    const rio = captureIo();
    assert.equal(await runCli(['requests', '--socket', m.socket, '--request', 'cli-req', '--format', 'json'], rio), 0, rio.stderr);
    const [rec] = JSON.parse(rio.stdout) as { matched: number; boundary: number; tiers: { dram: number }; firstMiss: { block: number; reason: string } }[];
    assert.equal(rec!.matched, 1);
    assert.equal(rec!.tiers.dram, 1);
    assert.deepEqual(rec!.firstMiss, { block: 1, reason: 'absent' });
    const text = captureIo();
    assert.equal(await runCli(['requests', '--socket', m.socket], text), 0);
    assert.match(text.stdout, /block 1 absent/);
    await c.close();
  });

  it('an unreachable Manager is a coded diagnostic, not a stack trace', async () => {
    const { runCli } = await import('../../engine/cli/main.js');
    const { captureIo } = await import('../support/io.js');
    const io = captureIo();
    assert.equal(await runCli(['manager', 'status', '--socket', '/nonexistent/x.sock'], io), 1);
    assert.match(io.stderr, /OKV7010/);
  });
});
