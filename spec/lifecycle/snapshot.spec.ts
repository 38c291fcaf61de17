import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../engine/cli/main.js';
import { captureIo } from '../support/io.js';
import { SPEC_NOW, cli, codes, digest, ledgerText, removeTemps, tempCopy } from './support.js';

const PINS = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };
const cacheOf = (dir: string) => join(dir, '.cache');
const ledger = (dir: string) => join(dir, 'evidence', 'ledger.jsonl');
const snapshotFile = (dir: string) => join(cacheOf(dir), readdirSync(cacheOf(dir)).find((f) => f.startsWith('fold-'))!);
async function withLedger(n: number): Promise<string> {
  const dir = tempCopy();
  for (let i = 0; i < n; i++) {
    const r = await cli(dir, 'evidence', 'add', 'gate.result', '--subject', 'gate.alpha.workload', '--at', `2026-12-01T10:0${i}:00Z`, '--data', JSON.stringify({ result: 'pass', hashes: { before: digest('x'), after: digest('x') } }), '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') }));
    assert.equal(r.code, 0, r.err);
  }
  return dir;
}
/** Rewrites the ledger keeping its length and mtime: what a stat-based cache could not see. */
function sneakyWrite(dir: string, text: string): void {
  const { size, mtime, atime } = statSync(ledger(dir));
  assert.equal(Buffer.byteLength(text), size);
  writeFileSync(ledger(dir), text);
  utimesSync(ledger(dir), atime, mtime);
}
const stateOf = async (dir: string, id: string) => (JSON.parse((await cli(dir, 'status', '--format', 'json')).out) as { rows: { id: string; state: string }[] }).rows.find((r) => r.id === id)!.state;

describe('snapshot cache: no command reports what a cold run refuses', () => {
  after(removeTemps);

  for (const [name, edit, code] of [
    ['a same-length edit of a middle record ("pass" → "fail")', (lines: string[]) => { lines[1] = lines[1]!.replace('"result":"pass"', '"result":"fail"'); }, 'OKV4102'],
    ['a swap of two records', (lines: string[]) => { [lines[1], lines[2]] = [lines[2]!, lines[1]!]; }, 'OKV4103'],
  ] as const) {
    it(`${name}, mtime put back, after a status: status and check refuse it as a cold run does (${code})`, async () => {
      const dir = await withLedger(4);
      assert.equal((await cli(dir, 'status')).code, 0);
      const lines = ledgerText(dir).split('\n');
      edit(lines);
      sneakyWrite(dir, lines.join('\n'));
      for (const argv of [['status'], ['check', '--no-wheel', '--out', join(dir, 'out')], ['status', '--no-cache']]) {
        const r = await cli(dir, ...argv);
        assert.equal(r.code, 1, argv.join(' '));
        assert.ok(codes(r.err + r.out).includes(code), `${argv[0]}: ${r.err}${r.out}`);
        assert.doesNotMatch(r.out, /hash chain intact/);
      }
    });
  }

  it('a cached state edited by hand is not shown: the board folds from the ledger', async () => {
    const dir = await withLedger(1);
    assert.equal(await stateOf(dir, 'hook.alpha.capture'), 'kept');
    const text = readFileSync(snapshotFile(dir), 'utf8');
    // Both the fold and the board row it caches, as a hand edit that means it would.
    const edited = text.replace(/("hook\.alpha\.capture":\{"value":)"kept"/, '$1"removable"').replace(/("hook\.alpha\.capture":\{"row":\{"state":)"kept"/, '$1"removable"');
    assert.equal(edited.split('"removable"').length - text.split('"removable"').length, 2);
    writeFileSync(snapshotFile(dir), edited);
    assert.equal(await stateOf(dir, 'hook.alpha.capture'), 'kept');
  });

  it('admission never trusts the cache: even a snapshot re-sealed with the cache key saying "regressed" does not let hook.reinstated in', async () => {
    const dir = await withLedger(1);
    await cli(dir, 'status');
    const text = readFileSync(snapshotFile(dir), 'utf8');
    const body = text.slice(text.indexOf('\n') + 1).replace(/("hook\.alpha\.capture":\{"value":)"kept"/, '$1"regressed"');
    const key = readFileSync(join(cacheOf(dir), 'seal.key'));
    writeFileSync(snapshotFile(dir), `${createHmac('sha256', key).update(body).digest('hex')}\n${body}`);
    const before = ledgerText(dir);
    const r = await cli(dir, 'evidence', 'add', 'hook.reinstated', '--subject', 'hook.alpha.capture', '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') }), '--data', JSON.stringify({ reason: 'the regression was fixed' }));
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(codes(r.err), ['OKV4009']);
    assert.equal(ledgerText(dir), before);
  });
});

describe('snapshot cache: a cache that cannot be used', () => {
  after(removeTemps);
  const run = async (dir: string, env: Record<string, string>, ...argv: string[]) => {
    const io = captureIo(dir, { ORBITKV_ACTOR: 'orbitkv-maintainers', ORBITKV_NOW: SPEC_NOW, ...env });
    const code = await runCli([...argv, '--registry', dir], io);
    return { code, out: io.stdout, err: io.stderr };
  };

  it('a cache folder that cannot be written warns (OKV4401); status shows the board and evidence add appends', async () => {
    const dir = await withLedger(1);
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, 'a file');
    const places = [join(blocker, 'cache')];
    if (process.getuid?.() !== 0) {
      const readOnly = join(dir, 'read-only');
      mkdirSync(readOnly);
      chmodSync(readOnly, 0o555);
      places.push(readOnly);
    }
    for (const place of places) {
      const status = await run(dir, { ORBITKV_CACHE_DIR: place }, 'status');
      assert.equal(status.code, 0, status.err);
      assert.match(status.out, /hook\.alpha\.capture/);
      assert.deepEqual(codes(status.err).filter((c) => c.startsWith('OKV44')), ['OKV4401']);
      const add = await run(dir, { ORBITKV_CACHE_DIR: place }, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--data', JSON.stringify({ findings: 'x', authorizes: 'nothing' }));
      assert.equal(add.code, 0, add.err);
    }
  });

  it('ORBITKV_CACHE_DIR set empty warns (OKV4402) and writes nothing into the working folder', async () => {
    const dir = await withLedger(1);
    const before = readdirSync(dir).sort();
    const status = await run(dir, { ORBITKV_CACHE_DIR: '' }, 'status');
    assert.equal(status.code, 0);
    assert.deepEqual(codes(status.err).filter((c) => c.startsWith('OKV44')), ['OKV4402']);
    assert.equal((await run(dir, { ORBITKV_CACHE_DIR: '' }, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--data', JSON.stringify({ findings: 'x', authorizes: 'nothing' }))).code, 0);
    assert.deepEqual(readdirSync(dir).sort(), before);
    assert.equal(existsSync(join(dir, 'seal.key')), false);
  });
});
