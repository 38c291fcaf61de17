import assert from 'node:assert/strict';
import { ManagerClient, OPCODE, PROTOCOL_VERSION, decodeLookupReply, decodeLookupRequest, encodeLookupRequest, LOOKUP_HEAD_BYTES, LOOKUP_REPLY_BYTES, writeLookupReply } from '../../engine/runtime/index.js';
import { CHAIN_MEMO_BYTES, ChainMemo, NamespaceMemo, namespaceId } from '../../engine/runtime/protocol/index.js';
import { NS, acceptedProfile, blockBytes, engineClient, lookupBody, pageFile, startManager, type ManagerProcess } from './support.js';

const BLOCK = 64 * 1024;

describe('runtime: the binary LOOKUP (protocol 3)', function () {
  this.timeout(60_000);

  describe('the layout', () => {
    it('a request encodes and decodes to the same LookupRequest', () => {
      const req = lookupBody(['a0', 'Zz_:+/=-9', 'x'.repeat(128)], { request: 'rq-é', rank: 3, worldSize: 8, deadlineMs: 600_000 });
      assert.deepEqual(decodeLookupRequest(encodeLookupRequest(req), 16), req);
    });

    it('a reply struct decodes to the JSON reply fields, with and without boundary and grant', () => {
      const out = Buffer.alloc(LOOKUP_REPLY_BYTES);
      const ready = { ticket: 2 ** 40 + 7, state: 'ready', boundary: 3, matched: 4, tiers: { dram: 1, ssd: 3 }, grant: '0123456789abcdef0123456789abcdef' };
      writeLookupReply(out, 0, ready);
      assert.deepEqual(decodeLookupReply(out), ready);
      const pending = { ticket: 9, state: 'pending', boundary: null, matched: 0, tiers: { dram: 0, ssd: 0 } };
      writeLookupReply(out, 0, pending);
      assert.deepEqual(decodeLookupReply(out), pending);
    });

    it('with a namespace memo: the same request decodes alike, and a namespace of the same bytes is the same object only while all its fields match', () => {
      const memo = new NamespaceMemo();
      const asked = (model: string, layout: string, blockSize: number, request = 'r') => encodeLookupRequest({ ...lookupBody(['h0', 'h1'], { request }), namespace: { model, layout, blockSize } });
      const first = decodeLookupRequest(asked('ab', 'c', 16), 16, memo) as { namespace: object };
      assert.deepEqual(first, decodeLookupRequest(asked('ab', 'c', 16), 16));
      const again = decodeLookupRequest(asked('ab', 'c', 16, 'other'), 16, memo) as { namespace: object; request: string };
      assert.equal(again.namespace, first.namespace, 'the same namespace object');
      assert.equal(again.request, 'other');
      assert.ok(Object.isFrozen(first.namespace));
      // The same bytes split another way, another block size, another model: each its own namespace.
      for (const [model, layout, blockSize] of [['a', 'bc', 16], ['ab', 'c', 32], ['ab', 'd', 16], ['é', 'c', 16]] as const) {
        const r = decodeLookupRequest(asked(model, layout, blockSize), 16, memo) as { namespace: { model: string; layout: string; blockSize: number } };
        assert.deepEqual(r.namespace, { model, layout, blockSize });
        assert.equal(namespaceId(r.namespace), JSON.stringify([model, layout, blockSize]));
      }
      assert.equal(namespaceId(first.namespace as never), JSON.stringify(['ab', 'c', 16]));
    });

    it('with a chain memo: a chain of the same bytes is the same frozen array, equal to a fresh decode; any other chain, count or a bad chain is decoded and checked anew', () => {
      const chains = new ChainMemo();
      const asked = (hashes: string[], request = 'r') => encodeLookupRequest(lookupBody(hashes, { request }));
      const first = decodeLookupRequest(asked(['h0', 'h1', 'h2']), 16, undefined, chains) as { hashes: readonly string[] };
      assert.ok(Object.isFrozen(first.hashes));
      const again = decodeLookupRequest(asked(['h0', 'h1', 'h2'], 'other'), 16, undefined, chains) as { hashes: readonly string[]; request: string };
      assert.equal(again.hashes, first.hashes, 'the same array, no decode');
      assert.equal(again.request, 'other');
      assert.deepEqual(again, decodeLookupRequest(asked(['h0', 'h1', 'h2'], 'other'), 16));
      // One byte different, one hash fewer, another count over the same bytes, then bytes that do not parse.
      const changed = decodeLookupRequest(asked(['h0', 'h1', 'h3']), 16, undefined, chains) as { hashes: readonly string[] };
      assert.deepEqual(changed.hashes, ['h0', 'h1', 'h3']);
      assert.notEqual(changed.hashes, first.hashes);
      assert.deepEqual((decodeLookupRequest(asked(['h0', 'h1']), 16, undefined, chains) as { hashes: readonly string[] }).hashes, ['h0', 'h1']);
      const miscounted = asked(['h0', 'h1']);
      miscounted.writeUInt16LE(3, 12);
      assert.match((decodeLookupRequest(miscounted, 16, undefined, chains) as { problem: string }).problem, /holds 2 hashes, count says 3/);
      const bad = asked(['h0', 'h1']);
      bad[bad.length - 1] = 0x20;
      assert.match((decodeLookupRequest(bad, 16, undefined, chains) as { problem: string }).problem, /outside/);
      // A chain past the memo's bound is decoded every time (nothing that large is kept).
      const long = Array.from({ length: 300 }, (_, i) => `${'f'.repeat(60)}${String(i).padStart(4, '0')}`);
      assert.ok(long.join('\n').length > CHAIN_MEMO_BYTES);
      const a = decodeLookupRequest(asked(long), 4096, undefined, chains) as { hashes: readonly string[] };
      const b = decodeLookupRequest(asked(long), 4096, undefined, chains) as { hashes: readonly string[] };
      assert.deepEqual(a.hashes, long);
      assert.notEqual(a.hashes, b.hashes);
    });

    /** A request whose chain the encoder's checks would refuse (the Manager's checks are what is tested). */
    const encodeLookupRequestUnchecked = (hashes: string[]) => {
      const b = encodeLookupRequest(lookupBody(['z'], { request: 'r' }));
      const chain = Buffer.from(hashes.join('\n'), 'latin1');
      const out = Buffer.concat([b.subarray(0, b.length - 1), chain]);
      out.writeUInt16LE(hashes.length, 12);
      out.writeUInt32LE(chain.length, 20);
      return out;
    };
    const good = () => encodeLookupRequest(lookupBody(['a0', 'a1'], { request: 'r' }));
    const malformed: [string, () => Buffer, RegExp][] = [
      ['shorter than the fixed part', () => good().subarray(0, LOOKUP_HEAD_BYTES - 1), /^truncated/],
      ['cut inside the names', () => good().subarray(0, LOOKUP_HEAD_BYTES + 3), /^truncated/],
      ['cut inside a hash', () => good().subarray(0, good().length - 1), /^truncated/],
      ['a hash missing (count above the chain)', () => { const b = good(); b.writeUInt16LE(3, 12); return b; }, /holds 2 hashes, count says 3/],
      ['an empty hash between separators', () => { const b = Buffer.concat([good(), Buffer.from('\n')]); b.writeUInt32LE(b.readUInt32LE(20) + 1, 20); return b; }, /hash 2 is 0 bytes/],
      ['a hash of 129 bytes', () => encodeLookupRequestUnchecked(['y'.repeat(129)]), /hash 0 is 129 bytes/],
      ['more hashes than maxBlocks', () => { const b = good(); b.writeUInt16LE(17, 12); return b; }, /^oversize/],
      ['trailing bytes', () => Buffer.concat([good(), Buffer.from([1])]), /after the chain/],
      ['a byte outside the hash alphabet', () => { const b = good(); b[b.length - 1] = 0x20; return b; }, /outside/],
      ['a zero-length first hash', () => { const b = good(); b[b.length - 5] = 0x0a; return b; }, /hash 0 is 0 bytes|outside/],
      ['rank not below worldSize', () => { const b = good(); b.writeUInt16LE(1, 8); return b; }, /rank 1/],
      ['a deadline past 600000 ms', () => { const b = good(); b.writeUInt32LE(600_001, 0); return b; }, /deadlineMs/],
      ['an empty model', () => { const b = good(); b.writeUInt16LE(0, 14); return b; }, /model is 0 bytes/],
    ];
    for (const [name, bytes, problem] of malformed) {
      it(`refuses ${name}`, () => {
        const r = decodeLookupRequest(bytes(), 16);
        assert.ok('problem' in r, JSON.stringify(r));
        assert.match(r.problem, problem);
      });
    }
  });

  describe('against a real Manager', () => {
    let m: ManagerProcess;
    before(async () => {
      m = await startManager(['--dram', '1m', '--block-size', '64k', '--lease-ms', '5000']);
    });
    after(async () => {
      if (m.child.exitCode === null) await m.stop();
    });

    it('finds what a JSON SAVE stored: state, boundary, tiers and a grant as the JSON LOOKUP reports them', async () => {
      const pages = pageFile(4, BLOCK);
      for (let i = 0; i < 3; i++) pages.write(i, blockBytes(`bin${i}`, BLOCK));
      const c = await engineClient(m, pages, 4, BLOCK);
      assert.deepEqual((await c.request(OPCODE.save, { namespace: NS, hashes: ['bin0', 'bin1', 'bin2'], pages: [0, 1, 2] })).body.blocks, ['stored', 'stored', 'stored']);
      const bin = await c.lookup(lookupBody(['bin0', 'bin1', 'bin2', 'nope', 'bin3']));
      assert.equal(bin.opcode, OPCODE.lookupBinaryResult, JSON.stringify(bin.body));
      const json = await c.request(OPCODE.lookup, lookupBody(['bin0', 'bin1', 'bin2', 'nope', 'bin3']));
      assert.equal(json.opcode, OPCODE.lookupResult);
      const { ticket: _b, grant: binGrant, ...binRest } = bin.body;
      const { ticket: _j, grant: jsonGrant, ...jsonRest } = json.body;
      assert.deepEqual(binRest, jsonRest);
      assert.deepEqual(binRest, { state: 'ready', boundary: 3, matched: 3, tiers: { dram: 3, ssd: 0 } });
      assert.match(String(binGrant), /^[0-9a-f]{32}$/);
      assert.match(String(jsonGrant), /^[0-9a-f]{32}$/);
      // The binary ticket is a real ticket: it restores.
      const restored = await c.request(OPCODE.restore, { ticket: bin.body.ticket, pages: [3] });
      assert.equal(restored.body.state, 'done', JSON.stringify(restored.body));
      assert.ok(pages.read(3).equals(blockBytes('bin0', BLOCK)));
      const miss = await c.lookup(lookupBody(['absent']));
      assert.deepEqual({ state: miss.body.state, boundary: miss.body.boundary, grant: miss.body.grant }, { state: 'miss', boundary: 0, grant: undefined });
      await c.close();
    });

    it('a pending binary lookup is named by LOOKUP_PENDING, then answered in binary', async () => {
      const c = await ManagerClient.connect(m.socket);
      await c.hello(acceptedProfile());
      // Rank 0 of two: pending until rank 1 reports.
      const request = 'two-ranks';
      const first = c.lookup(lookupBody(['absent'], { request, rank: 0, worldSize: 2 }));
      const second = await c.lookup(lookupBody(['absent'], { request, rank: 1, worldSize: 2 }));
      const one = await first;
      assert.equal(one.opcode, OPCODE.lookupBinaryResult);
      assert.equal(second.opcode, OPCODE.lookupBinaryResult);
      assert.deepEqual([one.body.state, second.body.state], ['miss', 'miss']);
      await c.close();
    });

    const faults: [string, () => Buffer][] = [
      ['truncated', () => encodeLookupRequest(lookupBody(['a0', 'a1'])).subarray(0, 30)],
      ['oversize (more hashes than maxBlocks)', () => { const b = encodeLookupRequest(lookupBody(['a0'])); b.writeUInt16LE(0xffff, 12); return b; }],
      ['garbage', () => Buffer.from('{"namespace":"this is JSON, not the binary layout"}')],
    ];
    for (const [name, payload] of faults) {
      it(`a ${name} binary lookup gets OKV7150 and closes that connection only`, async () => {
        const good = await ManagerClient.connect(m.socket);
        await good.hello(acceptedProfile());
        const bad = await ManagerClient.connect(m.socket);
        await bad.hello(acceptedProfile());
        const reply = await bad.requestBytes(OPCODE.lookupBinary, payload());
        assert.equal(reply.opcode, OPCODE.error);
        assert.equal(reply.body.code, 'OKV7150', JSON.stringify(reply.body));
        await bad.whenClosed();
        assert.equal((await good.lookup(lookupBody(['a0']))).body.state, 'miss');
        await good.close();
      });
    }

    it('a binary lookup before the handshake is refused (OKV7106)', async () => {
      const c = await ManagerClient.connect(m.socket);
      const r = await c.requestBytes(OPCODE.lookupBinary, encodeLookupRequest(lookupBody(['a0'])));
      assert.equal(r.opcode, OPCODE.refused);
      assert.equal(r.body.code, 'OKV7106');
      await c.whenClosed();
    });

    it('a protocol 3 client (no binary RELEASE) is refused naming both versions', async () => {
      assert.equal(PROTOCOL_VERSION, 4);
      const c = await ManagerClient.connect(m.socket);
      const r = await c.hello(acceptedProfile(), { protocol: 3, frameVersion: 3 });
      assert.equal(r.opcode, OPCODE.refused);
      assert.equal(r.body.code, 'OKV7101');
      assert.match(String(r.body.message), /version 3\b.*version 4\b/);
      await c.whenClosed();
    });
  });
});
