import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, truncateSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, codes, ledgerText, removeTemps, tempCopy } from './support.js';

const recheck = (dir: string, ...extra: string[]) => cli(dir, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--data', JSON.stringify({ findings: 'x', authorizes: 'nothing' }), ...extra);
async function withLedger(n: number): Promise<string> {
  const dir = tempCopy();
  for (let i = 0; i < n; i++) assert.equal((await recheck(dir, '--at', `2026-12-01T10:0${i}:00Z`)).code, 0);
  return dir;
}
const ledger = (dir: string) => join(dir, 'evidence', 'ledger.jsonl');

describe('evidence verify --repair: an interrupted append', () => {
  after(removeTemps);

  it('a last record complete but for its newline is completed, not dropped, and the ledger takes appends again', async () => {
    const dir = await withLedger(3);
    const whole = ledgerText(dir);
    truncateSync(ledger(dir), statSync(ledger(dir)).size - 1);
    // The head as an append killed before its rename leaves it: one record behind.
    const second = JSON.parse(whole.split('\n')[1]!) as { seq: number; hash: string };
    writeFileSync(join(dir, 'evidence', 'ledger.head'), JSON.stringify({ seq: second.seq, hash: second.hash }));
    assert.deepEqual(codes((await cli(dir, 'evidence', 'verify')).err), ['OKV4106']);
    const r = await cli(dir, 'evidence', 'verify', '--repair');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /completed line 3/);
    assert.equal(ledgerText(dir), whole);
    assert.equal((await cli(dir, 'evidence', 'verify')).code, 0);
    assert.equal((await recheck(dir, '--at', '2026-12-01T10:09:00Z')).code, 0);
  });

  it('a torn record (cut inside) is still dropped, and only it', async () => {
    const dir = await withLedger(3);
    const lines = ledgerText(dir).split('\n');
    truncateSync(ledger(dir), statSync(ledger(dir)).size - 30);
    writeFileSync(join(dir, 'evidence', 'ledger.head'), JSON.stringify({ seq: 2, hash: (JSON.parse(lines[1]!) as { hash: string }).hash }));
    const r = await cli(dir, 'evidence', 'verify', '--repair');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /dropped torn line 3/);
    assert.equal(ledgerText(dir), `${lines.slice(0, 2).join('\n')}\n`);
  });
});

describe('evidence add: timestamps', () => {
  after(removeTemps);

  it('refuses a time past now plus the skew (OKV4012) and a date that does not exist (OKV4013); later appends still go in', async () => {
    const dir = await withLedger(1);
    const before = ledgerText(dir);
    for (const [at, code] of [['9999-12-31T23:59:59Z', 'OKV4012'], ['2026-02-30T00:00:00Z', 'OKV4013'], ['2026-12-01T24:00:00Z', 'OKV4013']] as const) {
      const r = await recheck(dir, '--at', at);
      assert.equal(r.code, 1, at);
      assert.deepEqual(codes(r.err), [code], at);
      assert.equal(ledgerText(dir), before);
    }
    assert.equal((await recheck(dir, '--at', '2026-12-02T00:00:00Z')).code, 0);
  });

  it('status --at refuses a date that rolls over (usage, exit 2)', async () => {
    const dir = await withLedger(1);
    assert.equal((await cli(dir, 'status', '--at', '2026-02-30')).code, 2);
    assert.equal((await cli(dir, 'status', '--at', '2026-02-28')).code, 0);
  });
});

describe('ledger files and evidence data that are not what they claim', () => {
  after(removeTemps);

  it('a ledger or head that is a FIFO is refused at once (OKV4116), never waited on', async function () {
    this.timeout(20_000);
    for (const which of ['ledger.jsonl', 'ledger.head']) {
      const dir = await withLedger(2);
      const file = join(dir, 'evidence', which);
      rmSync(file);
      execFileSync('mkfifo', [file]);
      const started = Date.now();
      for (const argv of [['status'], ['evidence', 'verify'], ['status', '--no-cache']]) {
        const r = await cli(dir, ...argv);
        assert.equal(r.code, 1, `${which} ${argv.join(' ')}`);
        assert.ok(codes(r.err).includes('OKV4116'), r.err);
      }
      assert.equal(codes((await recheck(dir)).err)[0], 'OKV4116');
      assert.ok(Date.now() - started < 10_000);
    }
  });

  it('a ledger or head that points at /dev/zero is refused (OKV4116), not read', async () => {
    for (const which of ['ledger.jsonl', 'ledger.head']) {
      const dir = await withLedger(2);
      const file = join(dir, 'evidence', which);
      rmSync(file);
      symlinkSync('/dev/zero', file);
      const r = await cli(dir, 'evidence', 'verify');
      assert.equal(r.code, 1);
      assert.deepEqual(codes(r.err), ['OKV4116']);
      assert.equal((await cli(dir, 'status')).code, 1);
    }
  });

  it('--data with a number that has no finite value (OKV4015), nesting 60,000 deep (OKV4014), or not an object (OKV4016) is refused with a code', async () => {
    const dir = await withLedger(1);
    const before = ledgerText(dir);
    const deep = `${'{"a":'.repeat(60_000)}1${'}'.repeat(60_000)}`;
    for (const [data, code] of [['{"findings":"x","authorizes":"nothing","n":1e400}', 'OKV4015'], [deep, 'OKV4014'], ['[1]', 'OKV4016'], ['{', 'OKV4016']] as const) {
      const r = await cli(dir, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--data', data);
      assert.equal(r.code, 1);
      assert.deepEqual(codes(r.err), [code]);
      assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    }
    const r = await cli(dir, 'evidence', 'add', 'gate.result', '--subject', 'gate.alpha.workload', '--data', '{"result":"pass"}', '--profile', `{"engines":{"alpha":{"version":"1.2.0"}},"adapter":${'['.repeat(100)}${']'.repeat(100)}}`);
    assert.deepEqual(codes(r.err), ['OKV4014']);
    assert.equal(readFileSync(ledger(dir), 'utf8'), before);
  });
});
