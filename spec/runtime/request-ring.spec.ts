import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_RECORDS, REQUEST_TEXT_BYTES, RequestRing } from '../../engine/runtime/records/request-ring.js';
import { REPO } from './support.js';

const opening = (ticket: number, request = `r${ticket}`) => ({ ticket, request, rank: 0, session: 7, atMs: Date.UTC(2026, 0, 1, 0, 0, ticket), namespace: 'ns', blocks: 4, state: 'pending' });

describe('runtime/records/request-ring: the lookup history in columns', () => {
  it('keeps the newest `capacity` records, newest first, each as it was written', () => {
    const ring = new RequestRing(3);
    const handles = [1, 2, 3, 4, 5].map((t) => ring.open(opening(t)));
    ring.setMatch(handles[4]!, 3, { dram: 2, ssd: 1 }, { block: 3, reason: 'evicted', since: '2026-01-01T00:00:00.000Z' });
    ring.setAnswer(handles[4]!, 2, 41);
    ring.setFirstMiss(handles[4]!, { block: 2, reason: 'beyond-boundary' });
    ring.setState(handles[4]!, 'ready');
    ring.setState(handles[3]!, 'miss');
    ring.setMatch(handles[3]!, 0, { dram: 0, ssd: 0 }, { block: 0, reason: 'evicted', since: 'then' });
    assert.equal(ring.size, 3);
    const listed = ring.list();
    assert.deepEqual(listed.map((r) => r.ticket), [5, 4, 3]);
    assert.deepEqual(listed[0], { ticket: 5, request: 'r5', rank: 0, session: 7, namespace: 'ns', blocks: 4, matched: 3, boundary: 2, state: 'ready', tiers: { dram: 2, ssd: 1 }, firstMiss: { block: 2, reason: 'beyond-boundary' }, latencyUs: 41, at: '2026-01-01T00:00:05.000Z' });
    assert.deepEqual(listed[1]!.firstMiss, { block: 0, reason: 'evicted', since: 'then' });
    assert.deepEqual(listed[2], { ticket: 3, request: 'r3', rank: 0, session: 7, namespace: 'ns', blocks: 4, matched: 0, boundary: null, state: 'pending', tiers: { dram: 0, ssd: 0 }, firstMiss: null, latencyUs: null, at: '2026-01-01T00:00:03.000Z' });
  });

  it('a handle whose slot was overwritten writes nothing (an old ticket cannot change a newer record)', () => {
    const ring = new RequestRing(2);
    const old = ring.open(opening(1));
    ring.open(opening(2));
    ring.open(opening(3)); // takes the slot of ticket 1
    ring.setState(old, 'expired');
    ring.setAnswer(old, 9, 9);
    ring.setMatch(old, 9, { dram: 9, ssd: 0 }, null);
    ring.setFirstMiss(old, { block: 0, reason: 'lease-expired' });
    const three = ring.list().find((r) => r.ticket === 3)!;
    assert.deepEqual([three.state, three.boundary, three.matched, three.firstMiss, three.latencyUs], ['pending', null, 0, null, null]);
  });

  it('a slot reused starts clean: nothing of the record it replaced shows', () => {
    const ring = new RequestRing(1);
    const a = ring.open(opening(1));
    ring.setMatch(a, 4, { dram: 4, ssd: 0 }, { block: 4, reason: 'evicted', since: 'x' });
    ring.setAnswer(a, 4, 12);
    ring.open(opening(2));
    assert.deepEqual(ring.list()[0], { ticket: 2, request: 'r2', rank: 0, session: 7, namespace: 'ns', blocks: 4, matched: 0, boundary: null, state: 'pending', tiers: { dram: 0, ssd: 0 }, firstMiss: null, latencyUs: null, at: '2026-01-01T00:00:02.000Z' });
  });

  it('filters by request and limit; a whole record (a refused handshake) is pushed with its first miss', () => {
    const ring = new RequestRing(8);
    ring.open(opening(1, 'a'));
    ring.open(opening(2, 'b'));
    ring.open(opening(3, 'a'));
    ring.push({ ...opening(0, 'client'), state: 'refused', firstMiss: { block: 0, reason: 'profile-rejected' } });
    assert.deepEqual(ring.list({ request: 'a' }).map((r) => r.ticket), [3, 1]);
    assert.deepEqual(ring.list({ limit: 2 }).map((r) => r.ticket), [0, 3]);
    assert.deepEqual(ring.list({ request: 'client' })[0]!.firstMiss, { block: 0, reason: 'profile-rejected' });
    assert.equal(ring.list({ request: 'client' })[0]!.state, 'refused');
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, NaN, MAX_RECORDS + 1]) assert.throws(() => new RequestRing(bad), RangeError);
    assert.equal(new RequestRing(MAX_RECORDS).capacity, MAX_RECORDS);
  });

  it('`orbitkv serve --records` beyond MAX_RECORDS is a usage error (exit 2) naming the flag and the most, before anything starts', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'engine/cli/main.ts', 'serve', '--socket', join(tmpdir(), `okv-records-${process.pid}`, 'm.sock'), '--records', String(MAX_RECORDS + 1)], { cwd: REPO, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--records ${MAX_RECORDS + 1} is more than ${MAX_RECORDS}`));
  });
  it('keeps request ids as bytes, not strings, up to REQUEST_TEXT_BYTES of UTF-8, and any id as it came', () => {
    const ring = new RequestRing(8);
    const ids = [
      'cmpl-' + 'a'.repeat(REQUEST_TEXT_BYTES - 5), // exactly the slot
      'x'.repeat(REQUEST_TEXT_BYTES + 1), // one byte over: kept as a string
      'é'.repeat(REQUEST_TEXT_BYTES / 2), // 2 bytes a character: exactly the slot
      'é'.repeat(REQUEST_TEXT_BYTES / 2 + 1), // fewer characters than the slot, more bytes
      '请求-🚀-' + '0'.repeat(20), // 3- and 4-byte characters
      'lone \ud800 surrogate', // not UTF-8 at all: kept as a string
      '',
      '\u0000nul',
    ];
    ids.forEach((id, t) => ring.open(opening(t + 1, id)));
    assert.deepEqual(ring.list().map((r) => r.request).reverse(), ids);
    assert.equal(ring.longRequestCount, 3);
    assert.deepEqual(ring.list({ request: ids[4] }).map((r) => r.ticket), [5]);
    assert.deepEqual(ring.list({ request: ids[1] }).map((r) => r.ticket), [2]);
    // A slot whose long id is overwritten by a short one keeps no string.
    for (let t = 9; t <= 16; t++) ring.open(opening(t, `req-${t}`));
    assert.equal(ring.longRequestCount, 0);
    assert.deepEqual(ring.list().map((r) => r.request), Array.from({ length: 8 }, (_, k) => `req-${16 - k}`));
  });
});
