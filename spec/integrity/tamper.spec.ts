import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sealLine, signMessage, signedMessage, parseOpenSshPrivateKey } from '../../engine/lifecycle/index.js';
import { codes, removeTemps } from '../lifecycle/support.js';
import { KEYS, headPath, ledgerPath, run, signedRegistry } from './support.js';

type Record_ = Record<string, unknown>;
interface Tampered {
  ledger?: string | null;
  head?: string | null;
}

/** Re-seals records from `from` on (the chain re-hashed after an edit), with a head on the new end: a forger's best effort without a trusted key. */
function reseal(records: Record_[], edit: (r: Record_, i: number) => Record_): Tampered {
  let prev = '0'.repeat(64);
  let last = { seq: 0, hash: '' };
  const text = records.map((r, i) => {
    const { hash: _h, ...body } = r;
    const sealed = sealLine(edit({ ...body, prev }, i));
    prev = sealed.hash;
    last = { seq: Number(body['seq']), hash: sealed.hash };
    return `${sealed.line}\n`;
  }).join('');
  return { ledger: text, head: `${JSON.stringify(last)}\n` };
}
const forged = (r: Record_, i: number): Record_ => (i === 2 ? { ...r, data: { findings: 'forged', authorizes: 'nothing' } } : r);
const intruder = parseOpenSshPrivateKey(readFileSync(join(KEYS, 'intruder'), 'utf8'));

/** Every tamper class of the issue, each a function of the clean ledger's lines and head, and the codes that may name it. */
const CLASSES: [string, (lines: string[], records: Record_[], head: string) => Tampered, string[]][] = [
  ['edit a record', (l) => ({ ledger: l.map((x, i) => (i === 2 ? x.replace('"findings":"r2"', '"findings":"r9"') : x)).join('') }), ['OKV4102']],
  ['reorder two records', (l) => ({ ledger: [l[0], l[2], l[1], l[3], l[4]].join('') }), ['OKV4103']],
  ['drop a middle record', (l) => ({ ledger: [l[0], l[1], l[3], l[4]].join('') }), ['OKV4103']],
  ['duplicate a record', (l) => ({ ledger: [l[0], l[1], l[1], l[2], l[3], l[4]].join('') }), ['OKV4105']],
  ['truncate mid-line', (l) => ({ ledger: l.join('').slice(0, -40) }), ['OKV4106']],
  ['truncate at a record boundary', (l) => ({ ledger: l.slice(0, 3).join('') }), ['OKV4107']],
  ['delete the ledger', () => ({ ledger: null }), ['OKV4113']],
  ['delete the head', () => ({ head: null }), ['OKV4114']],
  ['replace the head', (_l, r) => ({ head: `${JSON.stringify({ seq: 5, hash: String(r[3]!['hash']) })}\n` }), ['OKV4115']],
  ['garble the head', () => ({ head: '{"seq":5,"hash":' }), ['OKV4112']],
  ['re-hashed forgery, signatures stripped', (_l, r) => reseal(r, (x, i) => { const { signature: _s, ...u } = forged(x, i); return i >= 2 ? u : x; }), ['OKV4305']],
  ['re-hashed forgery, old signatures kept', (_l, r) => reseal(r, forged), ['OKV4303']],
  ['re-hashed forgery signed by an untrusted key', (_l, r) => reseal(r, (x, i) => { const y = forged(x, i); return i >= 2 ? { ...y, signature: signMessage(intruder, signedMessage(y)) } : y; }), ['OKV4302']],
  ['append a forged record past the snapshot (unsigned, head moved)', (l, r) => {
    const last = r[4]!;
    const { line, hash } = sealLine({ actor: 'orbitkv-maintainers', at: '2026-12-01T10:09:00Z', data: { findings: 'forged', authorizes: 'nothing' }, prev: last['hash'], seq: 6, subject: 'engine.alpha', type: 'recheck' });
    return { ledger: `${l.join('')}${line}\n`, head: `${JSON.stringify({ seq: 6, hash })}\n` };
  }, ['OKV4305']],
  ['CRLF line ends', (l) => ({ ledger: l.map((x) => x.replace(/\n$/, '\r\n')).join('') }), ['OKV4101']],
  ['a byte-order mark', (l) => ({ ledger: `\uFEFF${l.join('')}` }), ['OKV4101']],
  ['an empty file', () => ({ ledger: '' }), ['OKV4107']],
];

describe('integrity: every tamper class is detected by verify, status and check, cold and warm', function () {
  this.timeout(300_000);
  after(removeTemps);
  let base = '';
  before(async () => {
    base = signedRegistry();
    for (let i = 0; i < 5; i++) {
      const r = await run(base, join(base, '.unused'), 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--at', `2026-12-01T10:0${i}:00Z`, '--data', JSON.stringify({ findings: `r${i}`, authorizes: 'nothing' }));
      assert.equal(r.code, 0, r.err);
    }
    assert.equal((await run(base, join(base, '.unused'), 'evidence', 'verify')).code, 0);
  });

  for (const [name, tamper, expected] of CLASSES) {
    it(name, async () => {
      const dir = `${base}-${name.replace(/\W+/g, '-')}`;
      cpSync(base, dir, { recursive: true });
      try {
        const warm = join(dir, '.warm');
        // Warm: a snapshot of the clean ledger exists (status writes it) before the tamper.
        const clean = await run(dir, warm, 'status');
        assert.equal(clean.code, 0, clean.err);
        const text = readFileSync(ledgerPath(dir), 'utf8');
        const lines = text.split('\n').filter(Boolean).map((x) => `${x}\n`);
        const t = tamper(lines, lines.map((x) => JSON.parse(x) as Record_), readFileSync(headPath(dir), 'utf8'));
        if (t.ledger === null) rmSync(ledgerPath(dir));
        else if (t.ledger !== undefined) writeFileSync(ledgerPath(dir), t.ledger);
        if (t.head === null) rmSync(headPath(dir));
        else if (t.head !== undefined) writeFileSync(headPath(dir), t.head);
        const out = join(dir, 'out');
        const runs: [string, Promise<{ code: number; out: string; err: string }>][] = [
          ['verify', run(dir, join(dir, '.cold1'), 'evidence', 'verify')],
        ];
        for (const [label, argv] of [['status', ['status']], ['check', ['check', '--no-wheel', '--out', out]]] as const) {
          runs.push([`${label} warm`, run(dir, warm, ...argv)]);
          runs.push([`${label} cold`, run(dir, join(dir, `.cold-${label}`), ...argv)]);
        }
        runs.push(['status --no-cache', run(dir, warm, 'status', '--no-cache')]);
        for (const [label, pending] of runs) {
          const r = await pending;
          assert.equal(r.code, 1, `${label}: exit ${r.code}\n${r.out.slice(0, 400)}${r.err}`);
          const found = codes(r.err + (label.startsWith('check') ? r.out : ''));
          assert.ok(found.some((c) => expected.includes(c)), `${label}: expected ${expected.join('/')} in ${found.join(', ')}`);
          assert.doesNotMatch(r.out, /hash chain intact/, label);
        }
        // An append refuses the tampered ledger too.
        const append = await run(dir, warm, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--data', JSON.stringify({ findings: 'after', authorizes: 'nothing' }));
        assert.equal(append.code, 1, `append: ${append.out}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
