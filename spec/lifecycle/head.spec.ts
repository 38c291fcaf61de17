import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, codes, ledgerText, removeTemps, tempCopy } from './support.js';

/** The committed head (seq and hash) is checked by `evidence verify`, `status` and `check`. */
describe('ledger head anchor', () => {
  after(removeTemps);
  const recheck = (dir: string, i: number) => cli(dir, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--at', `2026-12-01T10:0${i}:00Z`, '--data', JSON.stringify({ findings: `r${i}`, authorizes: 'nothing' }));
  async function withLedger(): Promise<string> {
    const dir = tempCopy();
    for (let i = 0; i < 3; i++) assert.equal((await recheck(dir, i)).code, 0);
    return dir;
  }
  const head = (dir: string) => join(dir, 'evidence', 'ledger.head');
  const ledger = (dir: string) => join(dir, 'evidence', 'ledger.jsonl');
  /** The codes verify, status and check (each without and with a snapshot) report. */
  async function everyone(dir: string): Promise<string[][]> {
    const out: string[][] = [];
    for (const argv of [['evidence', 'verify'], ['status'], ['status', '--no-cache'], ['check', '--no-wheel', '--out', join(dir, 'out')]]) {
      const r = await cli(dir, ...argv);
      out.push([String(r.code), ...new Set(codes(r.err + (argv[0] === 'check' ? r.out : '')).filter((c) => c.startsWith('OKV41')))]);
    }
    return out;
  }
  const all = (code: string) => [['1', code], ['1', code], ['1', code], ['1', code]];

  it('a deleted ledger under a head is OKV4113, and nothing is appended until it is back', async () => {
    const dir = await withLedger();
    await cli(dir, 'status');
    rmSync(ledger(dir));
    assert.deepEqual(await everyone(dir), all('OKV4113'));
    const r = await recheck(dir, 5);
    assert.equal(r.code, 1);
    assert.deepEqual(codes(r.err), ['OKV4113']);
    assert.equal(existsSync(ledger(dir)), false, 'no new chain started');
  });

  it('records without a head are OKV4114', async () => {
    const dir = await withLedger();
    rmSync(head(dir));
    assert.deepEqual(await everyone(dir), all('OKV4114'));
  });

  it('a garbage head, [], null, 5, or a head with a bad hash is OKV4112, never a stack trace or a silent pass', async () => {
    for (const text of ['{{{', '[]', 'null', '5', '{"seq":3}', '{"seq":3,"hash":"zz"}', '{"seq":-1,"hash":"' + 'a'.repeat(64) + '"}']) {
      const dir = await withLedger();
      writeFileSync(head(dir), text);
      assert.deepEqual(await everyone(dir), all('OKV4112'), text);
    }
  });

  it('a head that names another record than the ledger holds at its seq is OKV4115', async () => {
    const dir = await withLedger();
    writeFileSync(head(dir), JSON.stringify({ seq: 3, hash: 'b'.repeat(64) }));
    assert.deepEqual(await everyone(dir), all('OKV4115'));
    writeFileSync(head(dir), JSON.stringify({ seq: 1, hash: 'b'.repeat(64) }));
    assert.deepEqual(await everyone(dir), all('OKV4115'));
  });

  it('a head behind the ledger that names its record is an interrupted append: it verifies, warm and cold, and the next append moves it on', async () => {
    const dir = await withLedger();
    await cli(dir, 'status');
    for (const behind of [1, 0]) {
      const record = JSON.parse(ledgerText(dir).split('\n')[behind]!) as { seq: number; hash: string };
      writeFileSync(head(dir), JSON.stringify({ seq: record.seq, hash: record.hash }));
      assert.deepEqual(await everyone(dir), [['0'], ['0'], ['0'], ['0']], `head at seq ${record.seq}`);
    }
    assert.equal((await recheck(dir, 6)).code, 0);
    assert.match(ledgerText(dir), /"seq":4/);
  });
});
