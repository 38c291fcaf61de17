import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvidenceRecord } from '../../engine/model/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
import { GENESIS, type LedgerPosition, type LedgerSource, bufferSource, ledgerFiles, loadFold, parseLedger, scanLedger, scanLedgerFile, sealLine } from '../../engine/lifecycle/index.js';
import { WALK } from './support.js';
import { startHashCheck } from '../../engine/lifecycle/ledger/hash-check.js';

/** A sealed ledger of recheck records whose findings are given texts (any characters, any length). */
function ledger(findings: readonly string[]): { text: string; hashes: string[] } {
  let prev = GENESIS;
  const lines: string[] = [];
  const hashes: string[] = [];
  findings.forEach((text, i) => {
    const body = { seq: i + 1, prev, at: new Date(Date.UTC(2026, 11, 1, 10) + i * 1000).toISOString(), actor: 'qa', type: 'recheck', subject: 'engine.alpha', data: { findings: text, authorizes: 'nothing' } };
    const { line, hash } = sealLine(body);
    lines.push(line);
    hashes.push(hash);
    prev = hash;
  });
  return { text: lines.map((l) => `${l}\n`).join(''), hashes };
}

/** A source that hands out at most `most` bytes per read: every line boundary falls somewhere inside a read. */
function trickle(data: Buffer, most: number): LedgerSource {
  const whole = bufferSource(data);
  return (buffer, offset, length, position) => whole(buffer, offset, Math.min(length, most), position);
}

function scanAll(source: LedgerSource, from?: LedgerPosition) {
  const records: EvidenceRecord[] = [];
  const scan = scanLedger(source, from ? { from } : {}, (r) => records.push(r));
  return { records, ...scan };
}

describe('evidence ledger: the streaming reader', () => {
  const texts = ['plain', 'naïve café ☕ — 日本語', 'x'.repeat(3 << 20), '"quotes" and \\ backslashes \n escaped', '🙂'.repeat(1000), 'tail'];
  const { text, hashes } = ledger(texts);
  const bytes = Buffer.from(text, 'utf8');

  it('reads every record whatever the read sizes, lines longer than its buffer included', () => {
    const small = ledger(texts.filter((t) => t.length < 10_000));
    const cases: [Buffer, string[], string | undefined, number[]][] = [
      [Buffer.from(small.text, 'utf8'), texts.filter((t) => t.length < 10_000), small.hashes.at(-1), [1, 7]],
      [bytes, texts, hashes.at(-1), [4096, 1 << 20, bytes.length]],
    ];
    for (const [data, expected, last, sizes] of cases) {
      for (const most of sizes) {
        const got = scanAll(trickle(data, most));
        assert.deepEqual(got.diagnostics, [], `reads of ${most} bytes`);
        assert.deepEqual(got.records.map((r) => (r.data as { findings: string }).findings), expected, `reads of ${most} bytes`);
        assert.equal(got.end.offset, data.length, 'the end offset counts bytes, not characters');
        assert.equal(got.end.hash, last);
      }
    }
  });

  it('continues from a position in the middle, counting bytes of non-ASCII lines', () => {
    const first = scanAll(bufferSource(bytes.subarray(0, Buffer.byteLength(text.split('\n').slice(0, 2).join('\n') + '\n'))));
    assert.equal(first.count, 2);
    const rest = scanAll(bufferSource(bytes), first.end);
    assert.deepEqual(rest.diagnostics, []);
    assert.deepEqual(rest.records.map((r) => r.seq), [3, 4, 5, 6]);
    assert.equal(rest.end.line, 6);
  });

  it('agrees with the in-memory parser, and reports a torn last line with its byte offset', () => {
    const torn = Buffer.concat([bytes, Buffer.from('{"actor":"qa","at":"2026-12-0')]);
    const got = scanAll(trickle(torn, 5000));
    assert.equal(got.count, texts.length);
    assert.deepEqual(got.torn, { line: texts.length + 1, offset: bytes.length });
    assert.deepEqual(got.diagnostics.map((d) => d.code), ['OKV4106']);
    const parsed = parseLedger(torn.toString('utf8'));
    assert.deepEqual(parsed.torn, got.torn);
    assert.deepEqual(parsed.diagnostics.map((d) => d.code), got.diagnostics.map((d) => d.code));
  });

  it('feeds the digest exactly the bytes of the good lines, whatever the read sizes, up to a torn or a bad line', () => {
    // The 3 MiB line read in big pieces; the short lines alone also a byte or a few at a time.
    for (const [all, sizes] of [[bytes, [4096, 1 << 20, bytes.length]], [Buffer.from(ledger(texts.filter((t) => t.length < 10_000)).text, 'utf8'), [1, 7, 333]]] as const) {
      const lines = all.toString('utf8').split('\n').filter(Boolean).map((l) => Buffer.from(`${l}\n`, 'utf8'));
      const good = Buffer.concat(lines.slice(0, 3));
      const bad = Buffer.from(lines[3]!.toString('utf8').replace('"actor":"qa"', '"actor":"qb"'), 'utf8');
      const cases: [string, Buffer, number][] = [
        ['clean', all, all.length],
        ['torn', Buffer.concat([all, Buffer.from('{"actor":"qa","at":"2026-12-0')]), all.length],
        ['edited line 4', Buffer.concat([good, bad, lines[4]!]), good.length],
      ];
      for (const [name, data, goodBytes] of cases) {
        for (const most of sizes) {
          const digest = createHash('sha256');
          scanLedger(trickle(data, most), { digest }, () => undefined);
          assert.equal(digest.digest('hex'), createHash('sha256').update(data.subarray(0, goodBytes)).digest('hex'), `${name}, reads of ${most} bytes`);
        }
      }
    }
  });

  it('names a duplicated record by the line it repeats, across reads', () => {
    const lines = text.split('\n').filter(Boolean);
    const dup = Buffer.from([...lines.slice(0, 5), lines[1], lines[5]].map((l) => `${l}\n`).join(''), 'utf8');
    const got = scanAll(trickle(dup, 333));
    assert.equal(got.count, 5);
    assert.deepEqual(got.diagnostics.map((d) => [d.code, d.message]), [['OKV4105', 'line 6 duplicates line 2']]);
    assert.equal(got.diagnostics[0]!.range?.line, 6);
  });

  it('with the canonical check, a line both edited out of canonical form and not re-sealed is named as edited', () => {
    const first = text.split('\n')[0]!;
    const spaced = `${first.replace('"actor":"qa"', '"actor": "qa"')}\n`;
    const got = scanLedger(bufferSource(Buffer.from(spaced)), { canonical: true }, () => undefined);
    assert.deepEqual(got.diagnostics.map((d) => d.code), ['OKV4102']);
  });

  it('a line whose last key is not "hash" is unreadable, even when it ends in 64 hex digits', () => {
    const first = text.split('\n')[0]!;
    const renamed = `${first.slice(0, -75)},"hesh":"${first.slice(-66, -2)}"}\n`;
    assert.equal(renamed.length, first.length + 1);
    const got = scanAll(bufferSource(Buffer.from(renamed)));
    assert.deepEqual(got.diagnostics.map((d) => [d.code, d.range?.line]), [['OKV4101', 1]]);
  });

  it('a hash that is not hex makes the line unreadable; a wrong hex hash is a mismatch', () => {
    const lines = text.split('\n').filter(Boolean);
    const notHex = `${lines[0]!.slice(0, -66)}${'z'.repeat(64)}"}\n`;
    const wrong = `${lines[0]!.slice(0, -66)}${'0'.repeat(64)}"}\n`;
    const a = scanAll(bufferSource(Buffer.from(notHex)));
    const b = scanAll(bufferSource(Buffer.from(wrong)));
    assert.equal(a.count + b.count, 0);
    assert.deepEqual([a.diagnostics[0]!.code, b.diagnostics[0]!.code], ['OKV4101', 'OKV4102']);
    assert.deepEqual([a.diagnostics[0]!.range?.line, b.diagnostics[0]!.range?.line], [1, 1]);
  });
});

describe('evidence ledger: hashes checked on a worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'okv-parallel-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const files = ledgerFiles(dir);
  mkdirSync(join(dir, 'evidence'), { recursive: true });
  const { text } = ledger(Array.from({ length: 400 }, (_, i) => `finding ${i} ${'é'.repeat(i % 7)}`));
  const lines = text.split('\n').filter(Boolean);
  const scanFile = (parallel: boolean) => {
    const seqs: number[] = [];
    const scan = scanLedgerFile(files, parallel ? { parallelHashes: { minBytes: 0 } } : {}, (r) => seqs.push(r.seq));
    return { seqs, recheck: scan.recheck ?? false, codes: scan.diagnostics.map((d) => [d.code, d.range?.line]) };
  };

  it('a clean ledger reads the same as with inline hashing, with no recheck', () => {
    writeFileSync(files.ledger, text);
    const parallel = scanFile(true);
    assert.equal(parallel.recheck, false);
    assert.deepEqual(parallel, scanFile(false));
    assert.equal(parallel.seqs.length, 400);
  });

  it('an edited line asks for a recheck, and the inline scan names it; the fold is made from the good prefix only', () => {
    const edited = [...lines];
    edited[250] = edited[250]!.replace('finding 250', 'finding 25O');
    writeFileSync(files.ledger, edited.map((l) => `${l}\n`).join(''));
    assert.equal(scanFile(true).recheck, true);
    assert.deepEqual(scanFile(false).codes, [['OKV4102', 251]]);
    const { registry } = loadRegistry(WALK);
    const parallel = loadFold(registry, files, { parallelHashes: { minBytes: 0 } });
    const inline = loadFold(registry, files, { parallelHashes: { minBytes: Infinity } });
    assert.deepEqual(parallel.diagnostics.map((d) => [d.code, d.range?.line]), [['OKV4102', 251]]);
    assert.deepStrictEqual(parallel.state, inline.state);
    assert.equal(parallel.state.position.seq, 250);
  });

  it('a worker that cannot read the file gives no verdict (the caller checks inline) rather than a clean one', () => {
    const check = startHashCheck(join(dir, 'no-such-ledger.jsonl'), 0, 0);
    assert.ok(check);
    assert.deepEqual(check.verdict(), { failed: true });
  });

  it('a chain break before a bad hash is reported as the inline scan reports it, without a recheck', () => {
    const broken = [...lines];
    [broken[100], broken[101]] = [broken[101]!, broken[100]!];
    broken[300] = broken[300]!.replace('finding 300', 'finding 3OO');
    writeFileSync(files.ledger, broken.map((l) => `${l}\n`).join(''));
    const parallel = scanFile(true);
    assert.equal(parallel.recheck, false);
    assert.deepEqual(parallel.codes, scanFile(false).codes);
  });
});
