import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvidenceDraft } from '../../engine/model/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
import { ledgerFiles, loadBoard, loadFold, sha256 } from '../../engine/lifecycle/index.js';
import { codes, removeTemps, sealAll, tempCopy, writeLedger } from './support.js';

/** Rechecks of the one engine, `findings` numbered so that an edit keeps the line's length. */
const rechecks = (n: number): EvidenceDraft[] => Array.from({ length: n }, (_, i) => ({ at: `2026-12-01T10:${String(i).padStart(2, '0')}:00Z`, actor: 'orbitkv-maintainers', type: 'recheck', subject: 'engine.alpha', data: { findings: `r${String(i).padStart(2, '0')}`, authorizes: 'nothing' } }) as EvidenceDraft);

/** The warm path with the prefix hashed on a worker thread (`minBytes: 0`) and inline (`Infinity`). */
const ON_WORKER = { parallelPrefix: { minBytes: 0 } };
const INLINE = { parallelPrefix: { minBytes: Infinity } };

function setUp(total: number, cached: number) {
  const dir = tempCopy();
  const files = ledgerFiles(dir);
  const { registry } = loadRegistry(dir);
  const cacheDir = join(dir, '.cache');
  mkdirSync(join(dir, 'evidence'), { recursive: true });
  const all = sealAll(rechecks(total));
  const lines = all.text.split('\n').filter(Boolean).map((l) => `${l}\n`);
  const writeUpTo = (n: number) => writeLedger(files.ledger, lines.slice(0, n).join(''));
  writeUpTo(cached);
  return { dir, files, registry, cacheDir, lines, writeUpTo };
}

describe('snapshot prefix check on a worker thread', () => {
  after(removeTemps);

  it('resumes as the inline check does and as a cold fold ends: the same fold and board', () => {
    const { files, registry, cacheDir, writeUpTo } = setUp(8, 5);
    loadBoard(registry, files, { cacheDir, at: '2026-12-02T00:00:00Z' });
    writeUpTo(8);
    const worker = loadFold(registry, files, { cacheDir, deferStore: true, ...ON_WORKER });
    const inline = loadFold(registry, files, { cacheDir, deferStore: true, ...INLINE });
    const cold = loadFold(registry, files);
    assert.ok(worker.fromCache && inline.fromCache, 'both resumed from the snapshot');
    assert.deepEqual(worker.diagnostics, []);
    assert.deepStrictEqual(worker.state, inline.state);
    assert.deepStrictEqual(worker.state.contracts, cold.state.contracts);
    assert.deepStrictEqual(worker.state.position, cold.state.position);
  });

  it('a same-length edit of the prefix, mtime put back, is refused as a cold run refuses it (OKV4102)', () => {
    const { files, registry, cacheDir, lines, writeUpTo } = setUp(8, 5);
    loadBoard(registry, files, { cacheDir, at: '2026-12-02T00:00:00Z' });
    writeUpTo(8);
    const { size, mtime, atime } = statSync(files.ledger);
    const edited = lines.map((l, i) => (i === 1 ? l.replace('"findings":"r01"', '"findings":"r91"') : l)).join('');
    assert.equal(Buffer.byteLength(edited), size);
    writeFileSync(files.ledger, edited);
    utimesSync(files.ledger, atime, mtime);
    for (const options of [ON_WORKER, INLINE]) {
      const loaded = loadFold(registry, files, { cacheDir, deferStore: true, ...options });
      assert.equal(loaded.fromCache, false, `snapshot used over an edited prefix (${options.parallelPrefix.minBytes})`);
      assert.deepEqual(codes(JSON.stringify(loaded.diagnostics)), ['OKV4102']);
    }
  });

  it('a snapshot rewritten after a warm fold is proved by the digest of every byte it covers', () => {
    const { files, registry, cacheDir, writeUpTo } = setUp(9, 4);
    // loadFold writes a snapshot without board rows: the next warm load is due to rewrite it.
    loadFold(registry, files, { cacheDir });
    writeUpTo(9);
    const warm = loadFold(registry, files, { cacheDir, ...ON_WORKER });
    assert.ok(warm.fromCache && warm.storeDue);
    assert.equal(warm.prefix, sha256(readFileSync(files.ledger, 'utf8')));
    const again = loadFold(registry, files, { cacheDir, ...ON_WORKER });
    assert.ok(again.fromCache, 'the rewritten snapshot resumes');
    assert.equal(again.state.position.seq, 9);
    assert.deepStrictEqual(again.state.contracts, loadFold(registry, files).state.contracts);
  });
});
