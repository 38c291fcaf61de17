import assert from 'node:assert/strict';
import { FrameDecoder, HEADER_BYTES, MAGIC, encodeFrame, encodeTextFrame } from '../../engine/runtime/protocol/index.js';
import { checks } from '../../engine/runtime/protocol/index.js';
import { formatSize, parseSize } from '../../engine/runtime/size/index.js';

describe('runtime/protocol: framing', () => {
  it('round-trips frames fed one byte at a time, with 53-bit request ids', () => {
    const a = encodeFrame(3, 2 ** 40 + 7, Buffer.from('{"x":1}'));
    const b = encodeFrame(5, 1, Buffer.alloc(0));
    const d = new FrameDecoder(1024);
    const frames = [];
    for (const byte of Buffer.concat([a, b])) {
      const r = d.push(Buffer.from([byte]));
      assert.equal(r.fault, null);
      frames.push(...r.frames);
    }
    assert.deepEqual(frames.map((f) => [f.opcode, f.requestId, f.payload.toString()]), [[3, 2 ** 40 + 7, '{"x":1}'], [5, 1, '']]);
    assert.equal(d.end(), null);
  });

  it('a text frame (header and UTF-8 payload in one buffer) is byte for byte the frame of the text\'s bytes', () => {
    for (const text of ['', '{"ticket":1}', '{"request":"é✓ 𝄞"}']) {
      const one = encodeTextFrame(4, 2 ** 33 + 5, text);
      assert.deepEqual(one, encodeFrame(4, 2 ** 33 + 5, Buffer.from(text, 'utf8')));
      const [frame] = new FrameDecoder(1024).push(one).frames;
      assert.equal(frame!.payload.toString('utf8'), text);
    }
  });

  it('whole frames read straight from a chunk own their payloads (the chunk reused after), and a partial tail waits for the rest', () => {
    const bytes = Buffer.concat([encodeFrame(3, 1, Buffer.from('{"a":1}')), encodeFrame(3, 2, Buffer.from('{"b":2}')), encodeFrame(3, 3, Buffer.from('{"c":3}'))]);
    const d = new FrameDecoder(1024);
    const chunk = Buffer.from(bytes.subarray(0, bytes.length - 3));
    const first = d.push(chunk);
    chunk.fill(0);
    assert.deepEqual(first.frames.map((f) => [f.requestId, f.payload.toString()]), [[1, '{"a":1}'], [2, '{"b":2}']]);
    assert.equal(d.buffered, HEADER_BYTES + 7 - 3);
    const rest = d.push(Buffer.from(bytes.subarray(bytes.length - 3)));
    assert.deepEqual(rest.frames.map((f) => [f.requestId, f.payload.toString()]), [[3, '{"c":3}']]);
    assert.equal(d.end(), null);
  });

  it('a frame fed one byte at a time is copied a bounded number of times, not once per byte', () => {
    const payload = Buffer.alloc(64 * 1024, 0x61);
    const bytes = encodeFrame(9, 5, payload);
    const d = new FrameDecoder(64 * 1024);
    const concat = Buffer.concat;
    let copied = 0;
    Buffer.concat = ((list: readonly Uint8Array[], total?: number) => {
      const out = concat(list, total);
      copied += out.length;
      return out;
    }) as typeof Buffer.concat;
    const frames = [];
    try {
      for (let i = 0; i < bytes.length; i++) frames.push(...d.push(bytes.subarray(i, i + 1)).frames);
    } finally {
      Buffer.concat = concat;
    }
    assert.equal(frames.length, 1);
    assert.ok(frames[0]!.payload.equals(payload));
    assert.equal(d.buffered, 0);
    assert.ok(copied <= 4 * bytes.length, `${copied} bytes concatenated for one ${bytes.length}-byte frame`);
  });

  it('refuses an oversize length from the header alone, before the payload arrives', () => {
    const d = new FrameDecoder(16);
    const header = encodeFrame(3, 1, Buffer.alloc(17)).subarray(0, HEADER_BYTES);
    const r = d.push(header);
    assert.deepEqual(r.fault, { kind: 'oversize', length: 17, limit: 16 });
    assert.equal(d.buffered, 0);
  });

  it('refuses bad magic and a non-zero reserved word; reports a truncated tail at end of stream', () => {
    const bad = encodeFrame(3, 1);
    bad.writeUInt32LE(0xdeadbeef, 0);
    assert.equal(new FrameDecoder().push(bad).fault?.kind, 'bad-magic');
    const reserved = encodeFrame(3, 1);
    reserved.writeUInt32LE(1, 20);
    assert.equal(new FrameDecoder().push(reserved).fault?.kind, 'bad-reserved');
    // Request ids are exact doubles: up to 2^53 - 1 decoded as sent, a larger high word refused.
    assert.equal(new FrameDecoder().push(encodeFrame(3, Number.MAX_SAFE_INTEGER)).frames[0]!.requestId, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(new FrameDecoder().push(encodeFrame(3, 1).fill(0xff, 8, 16)).fault, { kind: 'bad-request-id', found: 0xffff_ffff });
    const split = new FrameDecoder();
    assert.equal(split.push(encodeFrame(3, 1, Buffer.from('abcd')).fill(0xff, 12, 16).subarray(0, HEADER_BYTES)).fault?.kind, 'bad-request-id');
    const d = new FrameDecoder();
    d.push(encodeFrame(3, 1, Buffer.from('abcdef')).subarray(0, HEADER_BYTES + 2));
    assert.deepEqual(d.end(), { kind: 'truncated', have: HEADER_BYTES + 2, need: HEADER_BYTES + 6 });
    assert.equal(encodeFrame(1, 1).readUInt32LE(0), MAGIC);
  });

  it('payload shape checks name the field', () => {
    const c = checks(4);
    const ns = { model: 'm', layout: 'l', blockSize: 16 };
    assert.match(String(c.lookup({ namespace: ns, hashes: ['a', 'b', 'c', 'd', 'e'], request: 'r', rank: 0, worldSize: 1, deadlineMs: 1 })), /at most 4/);
    assert.match(String(c.lookup({ namespace: ns, hashes: ['a'], request: 'r', rank: 2, worldSize: 2, deadlineMs: 1 })), /rank/);
    assert.match(String(c.save({ namespace: ns, hashes: ['a', 'b'], pages: [0] })), /pages/);
    assert.match(String(c.lookup({ namespace: { ...ns, blockSize: 0 }, hashes: [], request: 'r', rank: 0, worldSize: 1, deadlineMs: 1 })), /blockSize/);
    assert.equal(typeof c.lookup({ namespace: ns, hashes: ['a'], request: 'r', rank: 0, worldSize: 1, deadlineMs: 1 }), 'object');
  });
});

describe('runtime/size: sizes as operators write them', () => {
  it('parses units case-insensitively as powers of 1024', () => {
    assert.equal(parseSize('8gb'), 8 * 2 ** 30);
    assert.equal(parseSize('512MiB'), 512 * 2 ** 20);
    assert.equal(parseSize('64k'), 65536);
    assert.equal(parseSize('1.5G'), 1.5 * 2 ** 30);
    assert.equal(parseSize('4096'), 4096);
    assert.equal(parseSize(' 2 TB '), 2 * 2 ** 40);
  });
  it('refuses what is not a size', () => {
    for (const bad of ['', 'gb', '8 xb', '-1g', '1ib', '0.3', '1e3']) assert.equal(parseSize(bad), undefined, bad);
  });
  it('formats sizes', () => {
    assert.equal(formatSize(2 ** 30), '1 GiB');
    assert.equal(formatSize(1536 * 1024), '1.5 MiB');
    assert.equal(formatSize(100), '100 B');
  });
});
