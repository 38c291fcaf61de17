import assert from 'node:assert/strict';
import { ftruncateSync, readFileSync } from 'node:fs';
import { ManagerClient, OPCODE, encodeFrame } from '../../engine/runtime/index.js';
import { NS, acceptedProfile, blockBytes, engineClient, lookupBody, pageFile, startManager, type ManagerProcess } from './support.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** A misbehaving client costs its own connection at most: the Manager and other clients go on. */
describe('runtime: a misbehaving client against a real Manager', function () {
  this.timeout(120_000);
  let m: ManagerProcess;
  // A fresh Manager when a test killed the last one, so each test fails on its own.
  beforeEach(async () => {
    if (!m || m.child.exitCode !== null || m.child.signalCode !== null) m = await startManager(['--dram', '256k', '--block-size', '64k']);
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  const alive = async () => {
    assert.equal(m.child.exitCode, null, m.stderr());
    const good = await ManagerClient.connect(m.socket);
    assert.equal((await good.hello(acceptedProfile())).opcode, OPCODE.welcome);
    assert.deepEqual((await good.request(OPCODE.echo, { alive: true })).body, { alive: true });
    await good.close();
  };

  for (const opcode of ['release', 'cancel'] as const) {
    for (const [name, payload] of [['null', 'null'], ['a number', '7'], ['a string', '"x"']] as const) {
      it(`${opcode} with ${name} for its payload is answered OKV7105 and the Manager keeps serving`, async () => {
        const c = await ManagerClient.connect(m.socket);
        await c.hello(acceptedProfile());
        const reply = await Promise.race([c.request(OPCODE[opcode], JSON.parse(payload)), c.whenClosed().then(() => null)]);
        assert.equal(reply?.opcode, OPCODE.error, m.stderr().slice(-2000));
        assert.equal(reply!.body.code, 'OKV7105');
        assert.equal(c.closed, false);
        await c.close();
        await alive();
      });
    }
    it(`${opcode} with a well-formed ticket that is unknown is refused, not a crash`, async () => {
      const c = await ManagerClient.connect(m.socket);
      await c.hello(acceptedProfile());
      const r = await c.request(OPCODE[opcode], { ticket: 123456 });
      assert.equal(r.opcode, OPCODE.error);
      await c.close();
      await alive();
    });
  }

  for (const [who, greet] of [['an engine', (c: ManagerClient) => c.hello(acceptedProfile())], ['an operator', (c: ManagerClient) => c.request(OPCODE.operator, {})]] as const) {
    it(`${who}'s echo nested 30,000 deep is refused OKV7105; the Manager keeps serving`, async () => {
      const c = await ManagerClient.connect(m.socket);
      await greet(c);
      const deep = '['.repeat(30_000) + ']'.repeat(30_000);
      const got = new Promise<Buffer>((resolve) => c.socket.once('data', (d: Buffer) => resolve(d)));
      c.raw(encodeFrame(OPCODE.echo, 77, Buffer.from(deep)));
      const bytes = await Promise.race([got, c.whenClosed().then(() => null)]);
      assert.ok(bytes, `no reply: ${m.stderr().slice(-2000)}`);
      assert.equal(bytes.readUInt16LE(6), OPCODE.error);
      assert.equal((JSON.parse(bytes.subarray(24).toString('utf8')) as { code: string }).code, 'OKV7105');
      await c.close();
      await alive();
    });
  }

  it('an echo comes back byte for byte (the payload is not re-serialised)', async () => {
    const c = await ManagerClient.connect(m.socket);
    await c.hello(acceptedProfile());
    const text = '{ "b" : 1.50, "a":[ 1e2 ] }';
    const got = new Promise<Buffer>((resolve) => c.socket.once('data', (d: Buffer) => resolve(d)));
    c.raw(encodeFrame(OPCODE.echo, 78, Buffer.from(text)));
    assert.equal((await got).subarray(24).toString('utf8'), text);
    await c.close();
  });

  it('a client that sends echoes and never reads does not grow the Manager: reading stops, and every reply comes once it reads', async () => {
    const c = await ManagerClient.connect(m.socket);
    await c.hello(acceptedProfile());
    const payload = Buffer.from(JSON.stringify({ pad: 'x'.repeat(60_000) }));
    const count = 2_000;
    let replies = 0;
    try {
      c.socket.pause();
      const before = rssBytes(m.child.pid!);
      for (let i = 0; i < count; i++) c.raw(encodeFrame(OPCODE.echo, 1_000 + i, payload));
      await wait(3_000);
      const grown = rssBytes(m.child.pid!) - before;
      assert.ok(grown < 64 * 1024 * 1024, `the Manager grew ${grown} bytes for a client that does not read`);
      await alive();
      c.socket.on('data', (d: Buffer) => {
        replies += d.length;
      });
      c.socket.resume();
      const frameBytes = 24 + payload.length;
      for (let t = 0; t < 600 && replies < count * frameBytes; t++) await wait(50);
      assert.equal(replies, count * frameBytes);
      await c.close();
    } finally {
      c.socket.destroy();
    }
  });
});

describe('runtime: a refused lookup in the request history', function () {
  this.timeout(60_000);

  it('a lookup refused for a duplicate rank is recorded refused, never left pending', async () => {
    const m = await startManager(['--dram', '256k', '--block-size', '64k']);
    try {
      const c = await ManagerClient.connect(m.socket);
      await c.hello(acceptedProfile());
      const request = 'dup-rank-request';
      const body = { namespace: { model: 'm', layout: 'l', blockSize: 16 }, hashes: ['x'], request, rank: 0, worldSize: 2, deadlineMs: 1_500 };
      const first = c.request(OPCODE.lookup, body);
      const second = await c.request(OPCODE.lookup, body);
      assert.equal(second.opcode, OPCODE.error, JSON.stringify(second.body));
      assert.equal(second.body.reason, 'duplicate-rank');
      await first;
      const list = await c.request(OPCODE.requests, { request });
      const states = (list.body.records as { state: string }[]).map((r) => r.state).sort();
      assert.deepEqual(states, ['refused', 'timedOut'], JSON.stringify(list.body));
      await c.close();
    } finally {
      await m.stop();
    }
  });
});

describe('runtime: an engine that tries to truncate its registered pages', function () {
  this.timeout(60_000);

  it('cannot (the memfd is sealed: ftruncate is EPERM), so saves and restores from its pages go on (no SIGBUS)', async () => {
    const BLOCK = 64 * 1024;
    const m = await startManager(['--dram', '256k', '--block-size', '64k']);
    try {
      const pages = pageFile(2, BLOCK);
      const c = await engineClient(m, pages, 2, BLOCK);
      pages.write(0, blockBytes('keep', BLOCK));
      assert.throws(() => ftruncateSync(pages.fd, 0), (e: NodeJS.ErrnoException) => e.code === 'EPERM');
      const kept = await c.request(OPCODE.save, { namespace: NS, hashes: ['keep'], pages: [0] });
      assert.deepEqual(kept.body.blocks, ['stored']);
      const t = await c.request(OPCODE.lookup, lookupBody(['keep']));
      const restored = await c.request(OPCODE.restore, { ticket: t.body.ticket, pages: [1] });
      assert.deepEqual(restored.body.blocks, ['restored'], JSON.stringify(restored.body));
      assert.ok(pages.read(1).equals(blockBytes('keep', BLOCK)));
      assert.equal(m.child.exitCode, null, m.stderr().slice(-2000));
      await c.close();
    } finally {
      if (m.child.exitCode === null) await m.stop();
    }
  });
});
