import assert from 'node:assert/strict';
import { ManagerClient, OPCODE, RELEASE_BYTES, decodeReleaseRequest, encodeFrame, encodeReleaseRequest } from '../../engine/runtime/index.js';
import { releasesLast } from '../../engine/runtime/server/connection.js';
import { encodeLookupRequest } from '../../engine/runtime/protocol/index.js';
import { NS, acceptedProfile, blockBytes, engineClient, lookupBody, pageFile, startManager, type ManagerProcess } from './support.js';

const BLOCK = 64 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runtime: the binary RELEASE (protocol 4)', function () {
  this.timeout(60_000);

  describe('the layout', () => {
    it('a ticket encodes as two u32 words, low first, and decodes to itself', () => {
      for (const t of [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER]) {
        const b = encodeReleaseRequest(t);
        assert.equal(b.length, RELEASE_BYTES);
        assert.equal(b.readUInt32LE(0) + b.readUInt32LE(4) * 2 ** 32, t);
        assert.equal(decodeReleaseRequest(b), t);
      }
      assert.throws(() => encodeReleaseRequest(-1), RangeError);
      assert.throws(() => encodeReleaseRequest(1.5), RangeError);
    });

    it('refuses a payload of any other length, or a ticket past 2^53', () => {
      for (const n of [0, 7, 9, 16]) assert.match((decodeReleaseRequest(Buffer.alloc(n)) as { problem: string }).problem, new RegExp(`^${n} bytes`));
      const far = Buffer.alloc(8);
      far.writeUInt32LE(0x20_0000, 4);
      assert.match((decodeReleaseRequest(far) as { problem: string }).problem, /2\^53/);
    });
  });

  describe('the order a read\'s frames are served in', () => {
    const f = (opcode: number, requestId: number, payload: Buffer = Buffer.alloc(0)) => ({ version: 4, opcode, requestId, payload });
    // A RELEASE frame of request id `id` naming ticket `id` (answered: below 100).
    const R = (id: number) => f(OPCODE.releaseBinary, id, encodeReleaseRequest(id));
    const L = (id: number) => f(OPCODE.lookupBinary, id);
    const room = { hasRoom: () => true, answered: (ticket: number) => ticket < 100 };
    const ids = (frames: { requestId: number }[]) => frames.map((x) => x.requestId);

    it('a release of an answered ticket moves past the lookups after it, never past another frame', () => {
      assert.deepEqual(ids(releasesLast([R(1), L(2)], room)), [2, 1]);
      assert.deepEqual(ids(releasesLast([R(1), R(2), L(3), L(4)], room)), [3, 4, 1, 2]);
      assert.deepEqual(ids(releasesLast([R(1), L(2), f(OPCODE.status, 3), L(4)], room)), [2, 1, 3, 4], 'the status sees release 1 carried out');
      assert.deepEqual(ids(releasesLast([R(1), f(OPCODE.echo, 2), L(3)], room)), [1, 2, 3]);
      assert.deepEqual(ids(releasesLast([L(1), R(2)], room)), [1, 2]);
      assert.deepEqual(ids(releasesLast([R(1), f(OPCODE.lookup, 2)], room)), [2, 1], 'a JSON lookup too');
    });

    it('a release of a pending or unknown ticket, or one that does not parse, stays where it came (a lookup could change what it releases)', () => {
      assert.deepEqual(ids(releasesLast([R(101), L(2)], room)), [101, 2], 'ticket 101 is pending: the other rank\'s lookup could make it ready');
      assert.deepEqual(ids(releasesLast([R(1), R(101), L(3)], room)), [1, 101, 3], 'and it holds the ones before it');
      assert.deepEqual(ids(releasesLast([R(101), R(1), L(3)], room)), [101, 3, 1]);
      assert.deepEqual(ids(releasesLast([f(OPCODE.releaseBinary, 7, Buffer.alloc(3)), L(8)], room)), [7, 8]);
    });

    it('keeps the order when the ticket table has no room for the read\'s lookups without its releases', () => {
      let asked = -1;
      const full = { ...room, hasRoom: (n: number) => ((asked = n), false) };
      const frames = [R(1), L(2), L(3)];
      assert.equal(releasesLast(frames, full), frames);
      assert.equal(asked, 2, 'asked for room for both lookups');
    });
  });

  describe('against a real Manager', () => {
    let m: ManagerProcess;
    before(async () => {
      m = await startManager(['--dram', '1m', '--block-size', '64k', '--lease-ms', '60000']);
    });
    after(async () => {
      if (m.child.exitCode === null) await m.stop();
    });

    it('releases a ready ticket without a reply: its leases go, and a restore or a second release of it is refused', async () => {
      const pages = pageFile(4, BLOCK);
      for (let i = 0; i < 2; i++) pages.write(i, blockBytes(`rel${i}`, BLOCK));
      const c = await engineClient(m, pages, 4, BLOCK);
      assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['rel0', 'rel1'], pages: [0, 1] })).body.blocks, ['stored', 'stored']);
      const ready = await c.lookup(lookupBody(['rel0', 'rel1'], { request: 'rb-ready' }));
      assert.deepEqual([ready.body.state, ready.body.boundary], ['ready', 2]);
      const ticket = ready.body.ticket as number;
      const pinned = async () => ((await c.request(OPCODE.status, {})).body.tiers as { pinned: number }).pinned;
      const inFlight = async () => ((await c.request(OPCODE.status, {})).body.inFlight as { tickets: number }).tickets;
      assert.equal(await pinned(), 2, 'the ready ticket leases its two blocks');
      c.release(ticket);
      // Frames are served in order: the status after it sees the release carried out.
      assert.equal(await pinned(), 0, 'the release gave its leases back');
      assert.equal(await inFlight(), 0);
      assert.equal(c.unsolicited.length, 0, 'a release carried out is not answered');
      const restore = await c.request(OPCODE.restore, { ticket, pages: [2] });
      assert.deepEqual([restore.opcode, restore.body.reason], [OPCODE.error, 'unknown-ticket']);
      // A second release: refused with ERROR OKV7107 under its own request id; the connection stays open.
      const id = c.release(ticket);
      assert.equal((await c.request(OPCODE.echo, { after: 'release' })).opcode, OPCODE.echoed);
      assert.equal(c.unsolicited.length, 1, JSON.stringify(c.unsolicited));
      const refused = c.unsolicited[0]!;
      assert.deepEqual([refused.opcode, refused.requestId, refused.body.code, refused.body.reason], [OPCODE.error, id, 'OKV7107', 'unknown-ticket']);
      await c.close();
    });

    it('a release and a lookup read together: both carried out, and a status after them sees both', async () => {
      const pages = pageFile(4, BLOCK);
      for (let i = 0; i < 2; i++) pages.write(i, blockBytes(`tog${i}`, BLOCK));
      const c = await engineClient(m, pages, 4, BLOCK);
      assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['tog0', 'tog1'], pages: [0, 1] })).body.blocks, ['stored', 'stored']);
      const first = await c.lookup(lookupBody(['tog0', 'tog1'], { request: 'tog-a' }));
      assert.equal(first.body.state, 'ready');
      // One write: RELEASE of the first ticket, a LOOKUP of the first block, then a STATUS.
      c.raw(Buffer.concat([
        encodeFrame(OPCODE.releaseBinary, 9001, encodeReleaseRequest(first.body.ticket as number)),
        encodeFrame(OPCODE.lookupBinary, 9002, encodeLookupRequest(lookupBody(['tog0'], { request: 'tog-b' }))),
        encodeFrame(OPCODE.status, 9003, Buffer.from('{}')),
      ]));
      for (let i = 0; i < 200 && c.unsolicited.length < 2; i++) await sleep(5);
      assert.deepEqual(c.unsolicited.map((r) => [r.requestId, r.opcode]), [[9002, OPCODE.lookupBinaryResult], [9003, OPCODE.statusResult]]);
      const status = c.unsolicited[1]!.body as { tiers: { pinned: number }; inFlight: { tickets: number } };
      assert.deepEqual([status.tiers.pinned, status.inFlight.tickets], [1, 1], 'the first ticket released, the second holding its one block');
      await c.close();
    });

    it('a release of a pending ticket read with the lookup that makes it ready leaves it ready (the release is not moved past that lookup)', async () => {
      const pages = pageFile(2, BLOCK);
      pages.write(0, blockBytes('pend0', BLOCK));
      const c = await engineClient(m, pages, 2, BLOCK);
      assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['pend0'], pages: [0] })).body.blocks, ['stored']);
      const first = c.lookup(lookupBody(['pend0'], { request: 'rb-pend', rank: 0, worldSize: 2 }));
      for (let i = 0; i < 100 && c.notices.size === 0; i++) await sleep(10);
      const pending = [...c.notices.values()][0]!.ticket as number;
      c.raw(Buffer.concat([
        encodeFrame(OPCODE.releaseBinary, 9101, encodeReleaseRequest(pending)),
        encodeFrame(OPCODE.lookupBinary, 9102, encodeLookupRequest(lookupBody(['pend0'], { request: 'rb-pend', rank: 1, worldSize: 2 }))),
      ]));
      assert.deepEqual([(await first).body.state, (await first).body.boundary], ['ready', 1]);
      for (let i = 0; i < 200 && c.unsolicited.length < 1; i++) await sleep(5);
      assert.deepEqual(c.unsolicited.map((r) => [r.requestId, r.body.state]), [[9102, 'ready']], 'no refusal of the release: it came while its ticket was pending');
      const status = (await c.request(OPCODE.status, {})).body as { inFlight: { tickets: number } };
      assert.equal(status.inFlight.tickets, 2, 'both ranks\' tickets are open and ready: the release, carried out first, did nothing to a pending ticket');
      await c.close();
    });

    it('a pending ticket is not released (RELEASE ends a ready ticket only): it still agrees with its other rank', async () => {
      const c = await ManagerClient.connect(m.socket);
      await c.hello(acceptedProfile());
      const first = c.lookup(lookupBody(['absent'], { request: 'rb-pending', rank: 0, worldSize: 2 }));
      for (let i = 0; i < 100 && c.notices.size === 0; i++) await sleep(10);
      const pending = [...c.notices.values()][0]!.ticket as number;
      c.release(pending);
      const second = await c.lookup(lookupBody(['absent'], { request: 'rb-pending', rank: 1, worldSize: 2 }));
      assert.deepEqual([(await first).body.state, second.body.state], ['miss', 'miss']);
      assert.equal(c.unsolicited.length, 0, JSON.stringify(c.unsolicited));
      await c.close();
    });

    for (const [name, payload] of [['7 bytes', Buffer.alloc(7)], ['9 bytes', Buffer.alloc(9)], ['JSON', Buffer.from('{"ticket":1}')]] as const) {
      it(`a binary release of ${name} gets OKV7151 and closes that connection only`, async () => {
        const good = await ManagerClient.connect(m.socket);
        await good.hello(acceptedProfile());
        const bad = await ManagerClient.connect(m.socket);
        await bad.hello(acceptedProfile());
        const reply = await bad.requestBytes(OPCODE.releaseBinary, payload);
        assert.equal(reply.opcode, OPCODE.error);
        assert.equal(reply.body.code, 'OKV7151', JSON.stringify(reply.body));
        await bad.whenClosed();
        assert.equal((await good.request(OPCODE.echo, { still: 'open' })).opcode, OPCODE.echoed);
        await good.close();
      });
    }

    it('before the handshake it is refused like any request (OKV7106)', async () => {
      const c = await ManagerClient.connect(m.socket);
      c.raw(encodeFrame(OPCODE.releaseBinary, 1, encodeReleaseRequest(1)));
      await c.whenClosed();
      assert.equal(c.unsolicited[0]?.body.code, 'OKV7106', JSON.stringify(c.unsolicited));
    });
  });
});
