import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, writeSync, closeSync, statSync, statfsSync, appendFileSync, readdirSync, readFileSync, chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ManagerClient, OPCODE, encodeFrame, HEADER_BYTES } from '../../engine/runtime/index.js';
import { NS, acceptedProfile, blockBytes, engineClient, lookupBody, pageFile, startManager, tempDir, type ManagerProcess } from './support.js';

const BLOCK = 64 * 1024;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runtime: faults against a real Manager', function () {
  this.timeout(120_000);

  describe('bad frames close only their own connection', () => {
    let m: ManagerProcess;
    before(async () => {
      m = await startManager(['--dram', '256k', '--block-size', '64k']);
    });
    after(async () => {
      if (m.child.exitCode === null) await m.stop();
    });

    const faulty: [string, () => Buffer][] = [
      ['random bytes', () => randomBytes(4096)],
      ['an oversize length', () => encodeFrame(OPCODE.echo, 1, Buffer.alloc(0)).fill(0, 16, 20).fill(0xff, 16, 19)],
      // 2^64 - 1 as the id: rounded to 2^64 it could not be written back, and the Manager died of it.
      ['a request id past 2^53 - 1', () => encodeFrame(OPCODE.echo, 1, Buffer.from('{}')).fill(0xff, 8, 16)],
    ];
    for (const [name, bytes] of faulty) {
      it(`${name}: that connection gets OKV7104 and is closed; another client keeps being served`, async () => {
        const good = await ManagerClient.connect(m.socket);
        assert.equal((await good.hello(acceptedProfile())).opcode, OPCODE.welcome);
        const bad = await ManagerClient.connect(m.socket);
        await bad.hello(acceptedProfile());
        bad.raw(bytes());
        await bad.whenClosed();
        assert.ok(bad.unsolicited.some((r) => r.opcode === OPCODE.error && r.body.code === 'OKV7104'), JSON.stringify(bad.unsolicited));
        const echo = await good.request(OPCODE.echo, { alive: true });
        assert.deepEqual(echo.body, { alive: true });
        await good.close();
      });
    }

    it('a request id past 2^53 - 1 before the handshake: OKV7104, closed; the largest exact id is echoed back as sent', async () => {
      const bad = await ManagerClient.connect(m.socket);
      bad.raw(encodeFrame(OPCODE.hello, 1, Buffer.from('{}')).fill(0xff, 8, 16));
      await bad.whenClosed();
      assert.ok(bad.unsolicited.some((r) => r.opcode === OPCODE.error && r.body.code === 'OKV7104' && /request-id/.test(String(r.body.message))), JSON.stringify(bad.unsolicited));
      const good = await ManagerClient.connect(m.socket);
      assert.equal((await good.hello(acceptedProfile())).opcode, OPCODE.welcome);
      good.raw(encodeFrame(OPCODE.echo, Number.MAX_SAFE_INTEGER, Buffer.from('{"top":1}')));
      const echoed = () => good.unsolicited.find((r) => r.requestId === Number.MAX_SAFE_INTEGER);
      for (let i = 0; i < 500 && !echoed(); i++) await wait(10);
      assert.equal(echoed()?.opcode, OPCODE.echoed, JSON.stringify(good.unsolicited));
      assert.deepEqual(echoed()?.body, { top: 1 });
      await good.close();
      assert.equal(m.child.exitCode, null, 'the Manager is still running');
    });

    it('a truncated frame then end of stream: logged, the session drained, the Manager keeps serving', async () => {
      const bad = await ManagerClient.connect(m.socket);
      await bad.hello(acceptedProfile());
      bad.raw(encodeFrame(OPCODE.echo, 2, Buffer.from('{"half":true}')).subarray(0, HEADER_BYTES + 3));
      await bad.close();
      await wait(100);
      assert.ok(m.logs.some((l) => l.event === 'frame-fault' && l.kind === 'truncated'));
      const good = await ManagerClient.connect(m.socket);
      assert.equal((await good.hello(acceptedProfile())).opcode, OPCODE.welcome);
      await good.close();
    });

    it('a second Manager on the same socket refuses with OKV7004 naming the first one\'s pid', () => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'engine/cli/main.ts', 'serve', '--socket', m.socket, '--dram', '256k', '--block-size', '64k'], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /OKV7004/);
      assert.match(r.stderr, new RegExp(`pid ${m.child.pid}`));
    });

    it('the socket is 0600 in a 0700 folder', () => {
      assert.equal(statSync(m.socket).mode & 0o777, 0o600);
      assert.equal(statSync(dirname(m.socket)).mode & 0o777, 0o700);
    });

    it('another uid cannot connect through the socket\'s mode (root only: it runs a process as uid 65534)', function () {
      if (process.getuid?.() !== 0) this.skip();
      // Let the other uid reach the folder, so the socket's own mode is what refuses it.
      chmodSync(dirname(dirname(m.socket)), 0o711);
      chmodSync(dirname(m.socket), 0o711);
      try {
        const r = spawnSync(process.execPath, ['-e', `require('net').connect(${JSON.stringify(m.socket)}).on('connect',()=>{console.log('connected');process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(3)})`], { encoding: 'utf8', uid: 65534, gid: 65534, timeout: 10_000 });
        assert.equal(r.stdout.trim(), 'EACCES');
      } finally {
        chmodSync(dirname(m.socket), 0o700);
        chmodSync(dirname(dirname(m.socket)), 0o700);
      }
    });

    it('a peer of another uid that gets through widened modes is refused by its SO_PEERCRED uid and logged (root only)', async function () {
      if (process.getuid?.() !== 0) this.skip();
      chmodSync(dirname(dirname(m.socket)), 0o711);
      chmodSync(dirname(m.socket), 0o711);
      chmodSync(m.socket, 0o666);
      try {
        const script = `const s=require('net').connect(${JSON.stringify(m.socket)});let got='';s.on('connect',()=>s.write(Buffer.alloc(24)));s.on('data',d=>got+=d);s.on('close',()=>{console.log(got.length?'served':'closed');process.exit(0)});s.on('error',e=>{console.log(e.code);process.exit(0)})`;
        const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', uid: 65534, gid: 65534, timeout: 10_000 });
        assert.ok(['closed', 'EPIPE', 'ECONNRESET'].includes(r.stdout.trim()), `the Manager closed it unserved: ${r.stdout}${r.stderr}`);
        await wait(50);
        const refused = m.logs.find((l) => l.event === 'peer-refused');
        assert.equal(refused?.uid, 65534);
      } finally {
        chmodSync(m.socket, 0o600);
        chmodSync(dirname(m.socket), 0o700);
        chmodSync(dirname(dirname(m.socket)), 0o700);
      }
    });
  });

  describe('SSD tier: kill -9, restart, torn records, bad bytes, full', () => {
    it('kill -9 during a stream of saves: after restart every acknowledged block is restored intact (SSD hot, DRAM cold)', async () => {
      const ssd = tempDir('kill');
      const sockDir = join(tempDir('ks'), 'run');
      const flags = ['--dram', '512k', '--ssd', ssd, '--ssd-size', '8m', '--block-size', '64k', '--checkpoint-every', '16'];
      const m = await startManager(flags, { socketDir: sockDir });
      const pages = pageFile(64, BLOCK);
      const c = await engineClient(m, pages, 64, BLOCK);
      const acked: string[] = [];
      const sent: string[] = [];
      let i = 0;
      const stream = (async () => {
        for (;;) {
          const h = `k${i}`;
          const page = i % 64;
          pages.write(page, blockBytes(h, BLOCK));
          sent.push(h);
          const r = await c.request(OPCODE.save, { namespace: NS, hashes: [h], pages: [page] });
          if (r.opcode !== OPCODE.saveResult) return;
          if ((r.body.blocks as string[])[0] === 'stored') acked.push(h);
          i++;
        }
      })();
      while (acked.length < 24) await wait(5);
      await m.kill9();
      await stream;
      const again = await startManager(flags, { socketDir: sockDir });
      const recovered = again.logs.find((l) => l.event === 'serving')!.recovered as { entries: number };
      assert.ok(recovered.entries >= acked.length, `recovered ${recovered.entries} of ${acked.length} acknowledged`);
      const dest = pageFile(1, BLOCK);
      const d = await engineClient(again, dest, 1, BLOCK);
      for (const h of sent) {
        const t = await d.request(OPCODE.lookup, lookupBody([h]));
        if (acked.includes(h)) assert.equal(t.body.state, 'ready', `${h} was acknowledged`);
        if (t.body.state !== 'ready') continue;
        assert.deepEqual(t.body.tiers, { dram: 0, ssd: 1 }, 'DRAM is cold after a restart');
        const r = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: [0] });
        assert.equal(r.body.state, 'done', `${h}: ${JSON.stringify(r.body)}`);
        assert.ok(dest.read(0).equals(blockBytes(h, BLOCK)), `${h} restored intact`);
      }
      await d.close();
      assert.equal(await again.stop(), 0);
    });

    it('kill -9 while four clients stream two-block saves and checkpoints run every 4 records: no answered block lost, none served torn', async () => {
      const ssd = tempDir('kill4');
      const sockDir = join(tempDir('ks4'), 'run');
      const flags = ['--dram', '1m', '--ssd', ssd, '--ssd-size', '16m', '--block-size', '64k', '--checkpoint-every', '4'];
      const m = await startManager(flags, { socketDir: sockDir });
      while (!m.logs.some((l) => l.event === 'ssd-preallocated')) await wait(10);
      const acked: string[] = [];
      const sent: string[] = [];
      let stopped = false;
      const streams = Array.from({ length: 4 }, async (_, id) => {
        const pages = pageFile(2, BLOCK);
        const c = await engineClient(m, pages, 2, BLOCK);
        for (let i = 0; !stopped; i++) {
          const hs = [`w${id}-${i}-a`, `w${id}-${i}-b`];
          hs.forEach((h, j) => pages.write(j, blockBytes(h, BLOCK)));
          sent.push(...hs);
          const r = await c.request(OPCODE.save, { namespace: NS, hashes: hs, pages: [0, 1] }).catch(() => null);
          if (!r || r.opcode !== OPCODE.saveResult) return;
          (r.body.blocks as string[]).forEach((b, j) => b === 'stored' && acked.push(hs[j]!));
        }
      });
      while (acked.length < 40) await wait(5);
      await m.kill9();
      stopped = true;
      await Promise.all(streams);
      const again = await startManager(flags, { socketDir: sockDir });
      const dest = pageFile(1, BLOCK);
      const d = await engineClient(again, dest, 1, BLOCK);
      let served = 0;
      for (const h of sent) {
        const t = await d.request(OPCODE.lookup, lookupBody([h]));
        if (acked.includes(h)) assert.equal(t.body.state, 'ready', `${h} was acknowledged`);
        if (t.body.state !== 'ready') continue;
        const r = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: [0] });
        assert.equal(r.body.state, 'done', `${h}: ${JSON.stringify(r.body)}`);
        assert.ok(dest.read(0).equals(blockBytes(h, BLOCK)), `${h} restored intact`);
        served++;
      }
      assert.ok(served >= acked.length);
      await d.close();
      assert.equal(await again.stop(), 0);
    });

    it('a torn record at the journal tail is dropped at recovery; a block whose bytes changed is a miss, never served', async () => {
      const ssd = tempDir('torn');
      const flags = ['--dram', '256k', '--ssd', ssd, '--ssd-size', '1m', '--block-size', '64k'];
      const m = await startManager(flags);
      const pages = pageFile(4, BLOCK);
      const c = await engineClient(m, pages, 4, BLOCK);
      for (let i = 0; i < 4; i++) pages.write(i, blockBytes(`t${i}`, BLOCK));
      assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['t0', 't1', 't2', 't3'], pages: [0, 1, 2, 3] })).body.blocks, ['stored', 'stored', 'stored', 'stored']);
      await c.close();
      assert.equal(await m.stop(), 0);
      appendFileSync(join(ssd, 'index.journal'), randomBytes(40));
      // Change one byte of every slot: every block now fails its checksum.
      const fd = openSync(join(ssd, 'blocks.dat'), 'r+');
      for (let s = 0; s < 16; s++) writeSync(fd, Buffer.from([0x5a]), 0, 1, s * BLOCK + 100);
      closeSync(fd);
      const again = await startManager(flags);
      const recovered = again.logs.find((l) => l.event === 'serving')!.recovered as { entries: number; tornBytes: number };
      assert.equal(recovered.entries, 4);
      assert.equal(recovered.tornBytes, 40);
      const dest = pageFile(4, BLOCK);
      const d = await engineClient(again, dest, 4, BLOCK);
      const t = await d.request(OPCODE.lookup, lookupBody(['t0', 't1']));
      assert.equal(t.body.boundary, 2);
      const r = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: [0, 1] });
      assert.equal(r.body.state, 'failed');
      assert.deepEqual(r.body.blocks, ['checksum', 'checksum']);
      assert.equal(dest.flag(0), 2, 'a block not served is flagged FAILED (the engine recomputes it), never LANDED');
      assert.equal(dest.flag(1), 2);
      assert.ok(!dest.read(0).equals(blockBytes('t0', BLOCK)));
      const after = await d.request(OPCODE.lookup, lookupBody(['t0']));
      assert.equal(after.body.state, 'miss', 'a block that failed its checksum is forgotten');
      await d.close();
      await again.stop();
    });

    it('SSD full of leased blocks: saves fail with a reason, restores keep working', async () => {
      const ssd = tempDir('full');
      const m = await startManager(['--dram', '256k', '--ssd', ssd, '--ssd-size', '128k', '--block-size', '64k']);
      const pages = pageFile(4, BLOCK);
      const c = await engineClient(m, pages, 4, BLOCK);
      for (let i = 0; i < 3; i++) pages.write(i, blockBytes(`f${i}`, BLOCK));
      await c.request(OPCODE.save, { namespace: NS, hashes: ['f0', 'f1'], pages: [0, 1] });
      const held = await c.request(OPCODE.lookup, lookupBody(['f0', 'f1']));
      assert.equal(held.body.boundary, 2);
      const third = await c.request(OPCODE.save, { namespace: NS, hashes: ['f2'], pages: [2] });
      assert.deepEqual(third.body.blocks, ['staged:ssd-full']);
      const r = await c.request(OPCODE.restore, { ticket: held.body.ticket, pages: [2, 3] });
      assert.equal(r.body.state, 'done');
      assert.ok(pages.read(3).equals(blockBytes('f1', BLOCK)));
      await c.close();
      await m.stop();
    });

    it('the SSD tier\'s disk full (ENOSPC on an 8 MiB tmpfs): saves fail naming it, restores keep working, saves resume once there is room (root only)', async function () {
      if (process.getuid?.() !== 0) this.skip();
      const mnt = tempDir('enospc');
      if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]).status !== 0) this.skip();
      try {
        const flags = ['--dram', '1m', '--ssd', mnt, '--ssd-size', '4m', '--block-size', '64k'];
        const m = await startManager(flags);
        while (!m.logs.some((l) => l.event === 'ssd-preallocated')) await wait(10);
        const pages = pageFile(4, BLOCK);
        const c = await engineClient(m, pages, 4, BLOCK);
        const first = ['e0', 'e1', 'e2', 'e3'];
        first.forEach((h, i) => pages.write(i, blockBytes(h, BLOCK)));
        assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: first, pages: [0, 1, 2, 3] })).body.blocks, ['stored', 'stored', 'stored', 'stored']);
        // An engine holds them (leased, so the saves below cannot evict them) to restore later.
        const dest = pageFile(4, BLOCK);
        const d = await engineClient(m, dest, 4, BLOCK);
        const t = await d.request(OPCODE.lookup, lookupBody(first));
        assert.equal(t.body.boundary, 4);
        // Something else takes every byte left on the disk.
        const filler = join(mnt, 'filler');
        const st = statfsSync(mnt);
        assert.equal(spawnSync('fallocate', ['-l', String(st.bavail * st.bsize), filler]).status, 0);
        let refused: string | null = null;
        for (let i = 0; i < 200 && refused === null; i++) {
          const r = await c.request(OPCODE.save, { namespace: NS, hashes: [`n${i}`], pages: [i % 4] });
          const outcome = (r.body.blocks as string[])[0]!;
          if (outcome !== 'stored') refused = outcome;
        }
        assert.equal(refused, 'staged:ssd-no-space', 'the save says the disk is full');
        const r = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: [0, 1, 2, 3] });
        assert.equal(r.body.state, 'done');
        first.forEach((h, i) => assert.ok(dest.read(i).equals(blockBytes(h, BLOCK)), `${h} restored intact`));
        rmSync(filler);
        pages.write(0, blockBytes('after', BLOCK));
        assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['after'], pages: [0] })).body.blocks, ['stored'], 'room again: saves are stored again');
        await Promise.all([c.close(), d.close()]);
        assert.equal(await m.stop(), 0);
        const again = await startManager(flags);
        const e = await engineClient(again, dest, 4, BLOCK);
        assert.equal((await e.request(OPCODE.lookup, lookupBody([...first, 'after']))).body.boundary, 5, 'what was stored survives a restart');
        await e.close();
        await again.stop();
      } finally {
        spawnSync('umount', ['-l', mnt]);
      }
    });

    it('a client killed with registered pages and a restore in flight: its I/O drains, then its leases go', async () => {
      const ssd = tempDir('drain');
      const m = await startManager(['--dram', '512k', '--ssd', ssd, '--ssd-size', '4m', '--block-size', '64k']);
      const pages = pageFile(32, BLOCK);
      const c = await engineClient(m, pages, 32, BLOCK);
      const hashes = Array.from({ length: 32 }, (_, i) => `d${i}`);
      hashes.forEach((h, i) => pages.write(i, blockBytes(h, BLOCK)));
      await c.request(OPCODE.save, { namespace: NS, hashes, pages: hashes.map((_, i) => i) });
      const t = await c.request(OPCODE.lookup, lookupBody(hashes));
      void c.request(OPCODE.restore, { ticket: t.body.ticket, pages: hashes.map((_, i) => i) });
      c.socket.destroy();
      const watcher = await ManagerClient.connect(m.socket);
      await watcher.request(OPCODE.operator, {});
      let status: { sessions: unknown[]; tiers: { pinned: number }; inFlight: { restores: number; tickets: number } };
      for (;;) {
        status = (await watcher.request(OPCODE.status, {})).body as typeof status;
        if (status.sessions.length === 0) break;
        await wait(10);
      }
      assert.deepEqual([status.tiers.pinned, status.inFlight.restores, status.inFlight.tickets], [0, 0, 0]);
      const closed = m.logs.filter((l) => l.event === 'session-closed');
      assert.ok(closed.length >= 1);
      await watcher.close();
      assert.equal(await m.stop(), 0);
    });
  });

  it('SIGTERM drains and exits 0, removing the socket and its lock', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k']);
    const c = await ManagerClient.connect(m.socket);
    await c.hello(acceptedProfile());
    assert.equal(await m.stop(), 0);
    assert.ok(!existsSync(m.socket));
    // The flock file stays (unlinking a lock file lets two starters lock different inodes), empty: no holder.
    assert.deepEqual(readdirSync(dirname(m.socket)), ['m.sock.lock']);
    assert.equal(readFileSync(`${m.socket}.lock`, 'utf8'), '');
    assert.ok(m.logs.some((l) => l.event === 'draining'));
    assert.ok(m.logs.some((l) => l.event === 'stopped'));
  });
});

describe('runtime: a registration is answered before its pages are populated', function () {
  this.timeout(60_000);
  it('REGISTER_PAGES comes back at once while the populate is held 3 s; a save and a restore through the pages work meanwhile; the populate is logged after', async () => {
    // A large registration populated before it is answered outlasts the client's timeout (about
    // 0.6 s per GiB): it is answered at once and populated behind (pages-populate-hold-ms holds
    // that back, as a large registration takes long).
    const m = await startManager(['--dram', '1m', '--block-size', '64k', '--faults', 'pages-populate-hold-ms=3000']);
    try {
      const pages = pageFile(2, BLOCK);
      const c = await ManagerClient.connect(m.socket);
      assert.equal((await c.hello(acceptedProfile(), { client: 'spec' })).opcode, OPCODE.welcome);
      const t0 = performance.now();
      const r = await c.registerMemfd(pages.fd, { pageBytes: BLOCK, pages: 2, layers: 1 });
      const answeredMs = performance.now() - t0;
      assert.equal(r.opcode, OPCODE.pagesRegistered, JSON.stringify(r.body));
      assert.ok(answeredMs < 2000, `answered after ${answeredMs.toFixed(0)} ms, with the populate held 3000 ms`);
      pages.write(0, blockBytes('early', BLOCK));
      const saved = await c.request(OPCODE.save, { namespace: NS, hashes: ['early'], pages: [0] });
      assert.deepEqual(saved.body.blocks, ['stored']);
      const t = await c.request(OPCODE.lookup, lookupBody(['early']));
      assert.equal(t.body.state, 'ready');
      const restored = await c.request(OPCODE.restore, { ticket: t.body.ticket, pages: [1] });
      assert.equal(restored.body.state, 'done', JSON.stringify(restored.body));
      assert.ok(pages.read(1).equals(blockBytes('early', BLOCK)), 'restored into a page not yet populated');
      assert.equal(m.logs.some((l) => l.event === 'pages-populated'), false, 'still held');
      for (let i = 0; i < 600 && !m.logs.some((l) => l.event === 'pages-populated'); i++) await wait(10);
      const done = m.logs.find((l) => l.event === 'pages-populated');
      assert.ok(done && done.populated === true && (done.ms as number) >= 2900, JSON.stringify(done));
      assert.ok(pages.read(1).equals(blockBytes('early', BLOCK)), 'the populate changed no byte');
      await c.close();
    } finally {
      assert.equal(await m.stop(), 0);
    }
  });
});

describe('runtime: a client pipelining without reading its replies', function () {
  this.timeout(60_000);
  it('is throttled by its own socket (bounded requests in flight); others keep being served', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k']);
    const flood = await ManagerClient.connect(m.socket);
    await flood.hello(acceptedProfile());
    // 2,000 lookups that each wait 30 s for a rank that never comes: without a bound they would all be open tickets.
    const frames = Buffer.concat(Array.from({ length: 2000 }, (_, i) => encodeFrame(OPCODE.lookup, 10 + i, Buffer.from(JSON.stringify(lookupBody([`x${i}`], { request: `flood-${i}`, worldSize: 2, deadlineMs: 30_000 }))))));
    flood.raw(frames);
    await wait(500);
    const watcher = await ManagerClient.connect(m.socket);
    await watcher.request(OPCODE.operator, {});
    const status = (await watcher.request(OPCODE.status, {})).body as { inFlight: { tickets: number } };
    // 256 pending lookups give their in-flight slot back (so a pending lookup never holds up a
    // save on the same connection), then 256 more hold slots: 512 at most.
    assert.ok(status.inFlight.tickets <= 512, `${status.inFlight.tickets} tickets open`);
    assert.ok(status.inFlight.tickets > 0);
    flood.socket.destroy();
    await watcher.close();
    assert.equal(await m.stop(), 0);
  });
});

describe('runtime: a busy metrics port', function () {
  this.timeout(120_000);

  it('refuses to start with OKV7111 naming the address, and exits (the socket is not left listening)', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const port = (busy.address() as import('node:net').AddressInfo).port;
    try {
      const socket = join(tempDir('sock'), 'run', 'm.sock');
      const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'engine/cli/main.ts', 'serve', '--socket', socket, '--dram', '256k', '--block-size', '64k', '--metrics', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('exit', (status) => {
          clearTimeout(timer);
          resolve({ status, stderr });
        });
      });
      assert.equal(r.status, 1, `exit ${r.status}: ${r.stderr.slice(-2000)}`);
      assert.match(r.stderr, /OKV7111/);
      assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.equal(existsSync(socket), false);
    } finally {
      busy.close();
    }
  });
});

describe('runtime: connections are bounded', function () {
  this.timeout(120_000);
  const operator = async (socket: string) => {
    const c = await ManagerClient.connect(socket);
    await c.request(OPCODE.operator, {});
    return c;
  };
  type Connections = { open: number; max: number; unsentBytes: number };
  const connections = async (c: ManagerClient) => ((await c.request(OPCODE.status, {})).body as { connections: Connections }).connections;

  it('a connection without HELLO is closed after --handshake-ms with OKV7152; one that said HELLO stays', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k', '--handshake-ms', '300']);
    const silent = await ManagerClient.connect(m.socket);
    const good = await ManagerClient.connect(m.socket);
    assert.equal((await good.hello(acceptedProfile())).opcode, OPCODE.welcome);
    await silent.whenClosed();
    assert.ok(silent.unsolicited.some((r) => r.opcode === OPCODE.error && r.body.code === 'OKV7152'), JSON.stringify(silent.unsolicited));
    assert.ok(m.logs.some((l) => l.event === 'handshake-timeout'));
    await wait(400);
    assert.deepEqual((await good.request(OPCODE.echo, { still: true })).body, { still: true });
    await good.close();
    assert.equal(await m.stop(), 0);
  });

  it('past --max-connections a new connection is closed at accept and logged; a freed place is served again', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k', '--max-connections', '3']);
    const held = await Promise.all([0, 1, 2].map(() => ManagerClient.connect(m.socket)));
    for (const c of held) assert.equal((await c.hello(acceptedProfile())).opcode, OPCODE.welcome);
    const extra = await ManagerClient.connect(m.socket);
    await extra.whenClosed();
    for (let i = 0; i < 100 && !m.logs.some((l) => l.event === 'connections-dropped'); i++) await wait(10);
    assert.ok(m.logs.some((l) => l.event === 'connections-dropped' && l.max === 3), JSON.stringify(m.logs.slice(-3)));
    await held.pop()!.close();
    await wait(50);
    const watcher = await operator(m.socket);
    assert.deepEqual(await connections(watcher), { open: 3, max: 3, unsentBytes: 0 });
    await watcher.close();
    for (const c of held) await c.close();
    assert.equal(await m.stop(), 0);
  });

  it('STATUS lists at most 128 sessions and counts them all: with 600 connected it is still one frame a client reads', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k']);
    const many = await Promise.all(Array.from({ length: 600 }, () => ManagerClient.connect(m.socket)));
    await Promise.all(many.map((c) => c.hello(acceptedProfile(), { client: 'a-client-name-of-some-length' })));
    const watcher = await operator(m.socket);
    const status = (await watcher.request(OPCODE.status, {})).body as { sessionCount: number; sessions: unknown[] };
    assert.equal(status.sessionCount, 600);
    assert.equal(status.sessions.length, 128);
    await watcher.close();
    await Promise.all(many.map((c) => c.close()));
    assert.equal(await m.stop(), 0);
  });

  it('frames already read wait while their client reads no replies: REQUESTS by the dozen hold one reply, not one each; all are answered once it reads', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k', '--records', '2000']);
    const c = await ManagerClient.connect(m.socket);
    await c.hello(acceptedProfile());
    // 2,000 records with long names: each REQUESTS reply is about 2 MB.
    const ns = { model: 'm'.repeat(250), layout: 'l'.repeat(250), blockSize: 16 };
    for (let b = 0; b < 10; b++) {
      const replies = Array.from({ length: 200 }, (_, i) => c.request(OPCODE.lookup, { namespace: ns, hashes: [`h${i}`], request: `${'r'.repeat(240)}${b}-${i}`, rank: 0, worldSize: 1, deadlineMs: 0 }));
      for (const r of await Promise.all(replies)) assert.equal(r.opcode, OPCODE.lookupResult, JSON.stringify(r.body));
    }
    c.socket.pause();
    const N = 40;
    c.raw(Buffer.concat(Array.from({ length: N }, (_, i) => encodeFrame(OPCODE.requests, 1_000_000 + i, Buffer.from('{"limit":2000}')))));
    await wait(1500);
    const watcher = await operator(m.socket);
    const held = await connections(watcher);
    // Without the wait, every one of the 40 replies is built and buffered: ~80 MiB (79 MB measured).
    assert.ok(held.unsentBytes < 8 * 2 ** 20, `${held.unsentBytes} reply bytes held for a client that reads none`);
    await watcher.close();
    // Read from here on with a decoder that takes the large replies: every REQUESTS is answered.
    c.socket.removeAllListeners('data');
    const { FrameDecoder } = await import('../../engine/runtime/protocol/index.js');
    const decoder = new FrameDecoder(64 * 2 ** 20);
    let answered = 0;
    c.socket.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk).frames) if (f.opcode === OPCODE.requestsResult && (JSON.parse(f.payload.toString()) as { records: unknown[] }).records.length === 2000) answered++;
    });
    c.socket.resume();
    for (let i = 0; i < 600 && answered < N; i++) await wait(50);
    assert.equal(answered, N);
    c.socket.destroy();
    assert.equal(await m.stop(), 0);
  });
});
