import { TICKET_ACTORS } from '../../engine/runtime/service/index.js';
import assert from 'node:assert/strict';
import { OPCODE, encodeFrame } from '../../engine/runtime/index.js';

const jsonPayload = (v: unknown) => Buffer.from(JSON.stringify(v));
import { NS, blockBytes, engineClient, lookupBody, pageFile, startManager, tempDir, type ManagerProcess } from './support.js';

const BLOCK = 64 * 1024;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests that overlap on one block or one slot, against a real Manager with an SSD tier. */
for (const actors of TICKET_ACTORS) {
  describe(`runtime: overlapping requests against a real Manager (ticket actors: ${actors})`, function () {
    this.timeout(120_000);
    let m: ManagerProcess;
    before(async () => {
      // 4 DRAM slots, 32 SSD slots.
      m = await startManager(['--dram', '256k', '--ssd', tempDir('ssd'), '--ssd-size', '2m', '--block-size', '64k', '--ticket-actors', actors]);
    });
    after(async () => {
      if (m.child.exitCode === null) await m.stop();
    });

    it('two restores of one block that is only on SSD, started together, both get its own bytes', async () => {
      const src = pageFile(8, BLOCK);
      const c = await engineClient(m, src, 8, BLOCK);
      const hashes = Array.from({ length: 8 }, (_, i) => `race${i}`);
      hashes.forEach((h, i) => src.write(i, blockBytes(h, BLOCK)));
      // Eight saves through four DRAM slots: the first blocks now live on SSD only, and every
      // DRAM slot holds another block's bytes.
      for (const [i, h] of hashes.entries()) {
        const saved = await c.request(OPCODE.save, { namespace: NS, hashes: [h], pages: [i] });
        assert.deepEqual(saved.body.blocks, ['stored'], JSON.stringify(saved.body));
      }
      const dest = pageFile(2, BLOCK);
      const d = await engineClient(m, dest, 2, BLOCK);
      const t1 = await d.request(OPCODE.lookup, lookupBody([hashes[0]!]));
      const t2 = await d.request(OPCODE.lookup, lookupBody([hashes[0]!]));
      assert.deepEqual([t1.body.boundary, t2.body.boundary], [1, 1], JSON.stringify([t1.body, t2.body]));
      assert.deepEqual(t1.body.tiers, { dram: 0, ssd: 1 }, JSON.stringify(t1.body));
      // Both restores in one write: the Manager starts them in the same turn.
      d.raw(Buffer.concat([encodeFrame(OPCODE.restore, 9001, jsonPayload({ ticket: t1.body.ticket, pages: [0] })), encodeFrame(OPCODE.restore, 9002, jsonPayload({ ticket: t2.body.ticket, pages: [1] }))]));
      for (let i = 0; i < 200 && d.unsolicited.filter((r) => r.opcode === OPCODE.restoreResult).length < 2; i++) await wait(25);
      const results = d.unsolicited.filter((r) => r.opcode === OPCODE.restoreResult);
      assert.equal(results.length, 2, JSON.stringify(d.unsolicited));
      for (const r of results) assert.deepEqual([r.body.state, r.body.blocks], ['done', ['restored']], JSON.stringify(r.body));
      for (const page of [0, 1]) {
        assert.ok(dest.read(page).equals(blockBytes(hashes[0]!, BLOCK)), `page ${page} holds ${dest.read(page).subarray(0, 8).toString()}…, not ${hashes[0]}`);
        assert.equal(dest.flag(page), 1);
      }
      await Promise.all([c.close(), d.close()]);
    });
  });
}

describe('runtime: SIGTERM drains what is in flight', function () {
  this.timeout(120_000);

  it('a save in flight when SIGTERM arrives is answered, and a restarted Manager serves its blocks', async () => {
    const ssd = tempDir('ssd');
    const flags = ['--dram', '8m', '--ssd', ssd, '--ssd-size', '16m', '--block-size', '64k'];
    const m = await startManager(flags);
    const count = 96;
    const src = pageFile(count, BLOCK);
    const c = await engineClient(m, src, count, BLOCK);
    const hashes = Array.from({ length: count }, (_, i) => `drain${i}`);
    hashes.forEach((h, i) => src.write(i, blockBytes(h, BLOCK)));
    const saved = c.request(OPCODE.save, { namespace: NS, hashes, pages: hashes.map((_, i) => i) });
    // Once the Manager has the frame (its reply cannot come before it has read it), stop it.
    await wait(5);
    const code = m.stop();
    const reply = await saved;
    assert.equal(reply.opcode, OPCODE.saveResult, JSON.stringify(reply.body));
    assert.ok((reply.body.blocks as string[]).every((b) => b === 'stored'), JSON.stringify(reply.body));
    assert.equal(await code, 0, m.stderr().slice(-3000));
    const again = await startManager(flags);
    try {
      const dest = pageFile(count, BLOCK);
      const d = await engineClient(again, dest, count, BLOCK);
      const t = await d.request(OPCODE.lookup, lookupBody(hashes));
      assert.equal(t.body.boundary, count, JSON.stringify(t.body));
      const restored = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: hashes.map((_, i) => i) });
      assert.equal(restored.body.state, 'done', JSON.stringify(restored.body));
      hashes.forEach((h, i) => assert.ok(dest.read(i).equals(blockBytes(h, BLOCK)), h));
      await d.close();
    } finally {
      await again.stop();
    }
  });
});

describe('runtime: saves racing for one SSD slot', function () {
  this.timeout(120_000);

  it('two saves started together with one SSD slot: every block answered "stored" is served after a restart', async () => {
    const ssd = tempDir('ssd');
    const flags = ['--dram', '256k', '--ssd', ssd, '--ssd-size', '64k', '--block-size', '64k'];
    const m = await startManager(flags);
    const src = pageFile(2, BLOCK);
    const c = await engineClient(m, src, 2, BLOCK);
    const hashes = ['slotA', 'slotB'];
    hashes.forEach((h, i) => src.write(i, blockBytes(h, BLOCK)));
    c.raw(Buffer.concat(hashes.map((h, i) => encodeFrame(OPCODE.save, 7001 + i, jsonPayload({ namespace: NS, hashes: [h], pages: [i] })))));
    for (let i = 0; i < 200 && c.unsolicited.filter((r) => r.opcode === OPCODE.saveResult).length < 2; i++) await wait(25);
    const results = c.unsolicited.filter((r) => r.opcode === OPCODE.saveResult).map((r) => (r.body.blocks as string[])[0]!);
    assert.equal(results.length, 2, JSON.stringify(c.unsolicited));
    await c.close();
    assert.equal(await m.stop(), 0);
    const again = await startManager(flags);
    try {
      const dest = pageFile(1, BLOCK);
      const d = await engineClient(again, dest, 1, BLOCK);
      // Which reply is which block: each save names its own hash, so look both up.
      let served = 0;
      for (const h of hashes) {
        const t = await d.request(OPCODE.lookup, lookupBody([h]));
        if (t.body.boundary !== 1) continue;
        const r = await d.request(OPCODE.restore, { ticket: t.body.ticket, pages: [0] });
        if ((r.body.blocks as string[])[0] === 'restored' && dest.read(0).equals(blockBytes(h, BLOCK))) served++;
      }
      const stored = results.filter((b) => b === 'stored').length;
      assert.ok(stored >= 1, JSON.stringify(results));
      assert.equal(served, stored, `answered ${JSON.stringify(results)}, served ${served} after a restart`);
      await d.close();
    } finally {
      await again.stop();
    }
  });
});
