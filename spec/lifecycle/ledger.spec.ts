import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LIFECYCLE_FIXTURES, SPEC_NOW, cli, codes, digest, ledgerText, removeTemps, tempCopy } from './support.js';

const PINS = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };

/** A registry copy with a ledger of `n` valid records. */
async function withLedger(n: number): Promise<string> {
  const dir = tempCopy();
  for (let i = 0; i < n; i++) {
    const r = await cli(dir, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--at', `2026-12-01T10:${String(i).padStart(2, '0')}:00Z`, '--data', JSON.stringify({ findings: `recheck ${i}`, authorizes: 'nothing' }));
    assert.equal(r.code, 0, r.err);
  }
  return dir;
}

const lines = (dir: string) => ledgerText(dir).split('\n').filter(Boolean);
const writeLines = (dir: string, list: string[]) => writeFileSync(join(dir, 'evidence', 'ledger.jsonl'), list.map((l) => `${l}\n`).join(''));
/** The first bad line `evidence verify` names: its code and line number. */
async function verdict(dir: string): Promise<{ code: number; codes: string[]; line?: number }> {
  const r = await cli(dir, 'evidence', 'verify');
  const m = /ledger\.jsonl:(\d+):/.exec(r.err);
  return { code: r.code, codes: codes(r.err), ...(m ? { line: Number(m[1]) } : {}) };
}

describe('evidence ledger: tamper detection', () => {
  after(removeTemps);

  it('a clean ledger verifies', async () => {
    const dir = await withLedger(4);
    assert.deepEqual(await verdict(dir), { code: 0, codes: [] });
  });

  it('an edited record is named by its line (OKV4102)', async () => {
    const dir = await withLedger(4);
    const l = lines(dir);
    l[2] = l[2]!.replace('recheck 2', 'recheck two');
    writeLines(dir, l);
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4102'], line: 3 });
  });

  it('reordered records break the chain at the first moved line (OKV4103)', async () => {
    const dir = await withLedger(4);
    const l = lines(dir);
    writeLines(dir, [l[0]!, l[2]!, l[1]!, l[3]!]);
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4103'], line: 2 });
  });

  it('a removed record breaks the chain where it was (OKV4103)', async () => {
    const dir = await withLedger(4);
    const l = lines(dir);
    writeLines(dir, [l[0]!, l[1]!, l[3]!]);
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4103'], line: 3 });
  });

  it('a duplicated record is named as a copy (OKV4105)', async () => {
    const dir = await withLedger(3);
    const l = lines(dir);
    writeLines(dir, [l[0]!, l[1]!, l[1]!, l[2]!]);
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4105'], line: 3 });
  });

  it('records removed from the end show against the head anchor (OKV4107)', async () => {
    const dir = await withLedger(4);
    writeLines(dir, lines(dir).slice(0, 2));
    assert.deepEqual((await verdict(dir)).codes, ['OKV4107']);
  });

  it('a line that is not a record (OKV4101), a re-sealed non-canonical one (OKV4110), time going backwards (OKV4109)', async () => {
    const dir = await withLedger(3);
    const l = lines(dir);
    writeLines(dir, [l[0]!, '{"not":"a record"}', l[2]!]);
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4101'], line: 2 });
    const { canonicalJson, sha256 } = await import('../../engine/lifecycle/index.js');
    const record = JSON.parse(l[1]!) as Record<string, unknown>;
    delete record['hash'];
    const spaced = JSON.stringify(record, null, 0).replace('"actor":', '"actor": ');
    const resealed = `${spaced.slice(0, -1)},"hash":"${sha256(spaced)}"}`;
    assert.notEqual(canonicalJson(record), spaced);
    writeLines(dir, [l[0]!, resealed]);
    writeFileSync(join(dir, 'evidence', 'ledger.head'), JSON.stringify({ seq: 2, hash: sha256(spaced) }));
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4110'], line: 2 });
  });

  it('a torn last line is reported (OKV4106); --repair drops only that line', async () => {
    const dir = await withLedger(3);
    const whole = ledgerText(dir);
    appendFileSync(join(dir, 'evidence', 'ledger.jsonl'), '{"actor":"orbitkv-maintainers","at":"2026-12-01T11:00:00Z","da');
    assert.deepEqual(await verdict(dir), { code: 1, codes: ['OKV4106'], line: 4 });
    const blocked = await cli(dir, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--data', '{"findings":"x","authorizes":"nothing"}');
    assert.equal(blocked.code, 1, 'no append onto a torn line');
    const r = await cli(dir, 'evidence', 'verify', '--repair');
    assert.equal(r.code, 0, r.err);
    assert.equal(ledgerText(dir), whole);
    assert.deepEqual(await verdict(dir), { code: 0, codes: [] });
  });

  it('--repair refuses to touch a ledger whose problem is not a torn line', async () => {
    const dir = await withLedger(3);
    const l = lines(dir);
    writeLines(dir, [l[0]!, l[2]!]);
    const before = ledgerText(dir);
    assert.equal((await cli(dir, 'evidence', 'verify', '--repair')).code, 1);
    assert.equal(ledgerText(dir), before);
  });
});

describe('evidence add: validation against the registry', () => {
  after(removeTemps);
  let dir = '';
  before(async () => {
    dir = await withLedger(1);
  });
  const refused = async (argv: string[], code: string) => {
    const before = ledgerText(dir);
    const r = await cli(dir, 'evidence', 'add', ...argv);
    assert.equal(r.code, 1, r.err);
    assert.ok(codes(r.err).includes(code), `${code} in ${r.err}`);
    assert.equal(ledgerText(dir), before);
  };

  it('unknown type (OKV4001), unknown contract (OKV4002), wrong subject kind (OKV4003)', async () => {
    await refused(['gate.passed', '--subject', 'gate.alpha.restore'], 'OKV4001');
    await refused(['recheck', '--subject', 'hook.alpha.nope', '--data', '{"findings":"x","authorizes":"nothing"}'], 'OKV4002');
    await refused(['upstream.state', '--subject', 'hook.alpha.capture', '--data', '{"state":"open"}'], 'OKV4003');
  });

  it('missing fields (OKV4004), bad values (OKV4005), unknown fields (OKV4006)', async () => {
    await refused(['gate.result', '--subject', 'gate.alpha.restore', '--data', '{"cell":{"tier":"dram"}}', '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') })], 'OKV4004');
    await refused(['recheck', '--subject', 'engine.alpha', '--data', '{"findings":"x","authorizes":"removal"}'], 'OKV4005');
    await refused(['recheck', '--subject', 'engine.alpha', '--data', '{"findings":"x","authorizes":"nothing","extra":1}'], 'OKV4006');
    await refused(['gate.result', '--subject', 'gate.alpha.restore', '--data', JSON.stringify({ result: 'pass', cell: { tier: 'dram' } }), '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') })], 'OKV4004');
  });

  it('timestamps going backwards (OKV4007)', async () => {
    await refused(['recheck', '--subject', 'engine.alpha', '--at', '2026-01-01T00:00:00Z', '--data', '{"findings":"x","authorizes":"nothing"}'], 'OKV4007');
  });

  it('a profile that does not match the pins (OKV4008)', async () => {
    await refused(['gate.result', '--subject', 'gate.alpha.workload', '--at', '2026-12-02T00:00:00Z', '--data', JSON.stringify({ result: 'pass', hashes: { before: digest('x'), after: digest('x') } }), '--profile', JSON.stringify({ engines: { alpha: { version: '1.1.0' } }, adapter: digest('a') })], 'OKV4008');
  });

  it('a cell that is not the gate\'s (OKV4010), a condition that does not exist (OKV4011)', async () => {
    await refused(['gate.result', '--subject', 'gate.alpha.restore', '--data', JSON.stringify({ result: 'fail', cell: { tier: 'nvme' } }), '--profile', JSON.stringify({ engines: PINS })], 'OKV4010');
    await refused(['adapter.consumed-replacement', '--subject', 'hook.alpha.capture', '--data', JSON.stringify({ condition: 3, adapterVersion: '1' }), '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') })], 'OKV4011');
  });

  it('--engines binds the profile to the current pins', async () => {
    const r = await cli(dir, 'evidence', 'add', 'gate.result', '--subject', 'gate.alpha.workload', '--at', '2026-12-02T00:00:00Z', '--engines', 'alpha', '--adapter', digest('a'), '--data', JSON.stringify({ result: 'pass', hashes: { before: digest('x'), after: digest('x') } }));
    assert.equal(r.code, 0, r.err);
    const last = JSON.parse(lines(dir).at(-1)!) as { profile: unknown };
    assert.deepEqual(last.profile, { engines: PINS, adapter: digest('a') });
  });
});

describe('evidence add: two processes appending at once lose nothing', () => {
  after(removeTemps);
  it('appends every record of both, in one intact chain', async function () {
    this.timeout(120_000);
    const dir = tempCopy();
    const run = (actor: string) =>
      new Promise<number>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(LIFECYCLE_FIXTURES, 'append-many.ts'), dir, '15', actor], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(0) : reject(new Error(`${actor} exited ${code}: ${err}`))));
      });
    await Promise.all([run('writer-a'), run('writer-b')]);
    const records = lines(dir).map((l) => JSON.parse(l) as { seq: number; actor: string });
    assert.equal(records.length, 30);
    assert.deepEqual(records.map((r) => r.seq), Array.from({ length: 30 }, (_, i) => i + 1));
    assert.equal(records.filter((r) => r.actor === 'writer-a').length, 15);
    assert.deepEqual(await verdict(dir), { code: 0, codes: [] });
    assert.equal(readFileSync(join(dir, 'evidence', 'ledger.head'), 'utf8').includes('"seq":30'), true);
  });
});

describe('ledger lock', () => {
  after(removeTemps);

  const lockOf = (pid: number, ns: string) => `${JSON.stringify({ pid, host: hostname(), ns, token: 'other' })}\n`;
  const ownNs = () => readlinkSync('/proc/self/ns/pid');

  /** Starts the lock-holder fixture on `lock` and resolves once it holds the lock. */
  function holder(lock: string, log: string): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(LIFECYCLE_FIXTURES, 'lock-holder.ts'), lock, log, 'holder', '5000'], { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout!.once('data', (d: Buffer) => (d.toString().startsWith('held') ? resolve(child) : reject(new Error(d.toString()))));
      child.once('error', reject);
    });
  }

  it('what a lock file holds never blocks (empty, garbage, a dead or a live pid of any pid namespace); it stays, emptied, after the body', async () => {
    const { withLock, ledgerFiles } = await import('../../engine/lifecycle/index.js');
    const dir = tempCopy();
    const files = ledgerFiles(dir);
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    for (const text of ['', 'garbage', '[]', lockOf(dead, ownNs()), lockOf(process.pid, ownNs()), lockOf(process.pid, 'pid:[1]')]) {
      writeFileSync(files.lock, text);
      assert.equal(withLock(files.lock, () => 'ran', 0), 'ran', `a lock file holding ${JSON.stringify(text)}`);
      assert.equal(readFileSync(files.lock, 'utf8'), '', 'the lock file is kept (never removed) and emptied on release');
    }
  });

  it('a live holder makes the wait run out with OKV4108 naming its pid; killed with -9, its lock is free at once', async function () {
    this.timeout(30_000);
    const { withLock, ledgerFiles } = await import('../../engine/lifecycle/index.js');
    const dir = tempCopy();
    const files = ledgerFiles(dir);
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const child = await holder(files.lock, join(dir, 'log'));
    const outcome = withLock(files.lock, () => 'ran', 200);
    assert.ok(typeof outcome === 'object' && outcome.code === 'OKV4108', JSON.stringify(outcome));
    assert.ok(outcome.message.includes(String(child.pid)), outcome.message);
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    assert.equal(withLock(files.lock, () => 'ran', 0), 'ran', 'the kernel released the lock of the killed holder');
  });

  it('a lock file that is not a regular file (a FIFO, a folder, a symbolic link) is OKV4120, not a hang', async () => {
    const { withLock, ledgerFiles } = await import('../../engine/lifecycle/index.js');
    for (const make of [(p: string) => spawnSync('mkfifo', [p]), (p: string) => mkdirSync(p), (p: string) => symlinkSync('/dev/null', p)]) {
      const dir = tempCopy();
      const files = ledgerFiles(dir);
      mkdirSync(join(dir, 'evidence'), { recursive: true });
      make(files.lock);
      const outcome = withLock(files.lock, () => 'ran', 100);
      assert.ok(typeof outcome === 'object' && outcome.code === 'OKV4120', JSON.stringify(outcome));
    }
  });

  it('a holder whose lock file was replaced meanwhile writes nothing (OKV4117)', async () => {
    const { appendEvidence, ledgerAdmission, openSession } = await import('../../engine/lifecycle/index.js');
    const dir = tempCopy();
    const session = openSession(dir, dir);
    const before = existsSync(session.files.ledger) ? readFileSync(session.files.ledger, 'utf8') : '';
    const admission = ledgerAdmission(session.registry, session.files, { now: () => Date.parse(SPEC_NOW) });
    const result = appendEvidence(session.files, { actor: 'a', type: 'recheck', subject: 'engine.alpha', data: { findings: 'x', authorizes: 'nothing' } } as never, {
      ...admission,
      check: (record, end) => {
        // Something removed the lock file and a new one was made: a second appender could lock that one.
        unlinkSync(session.files.lock);
        writeFileSync(session.files.lock, '');
        return admission.check(record, end);
      },
    });
    assert.deepEqual(codes(result.diagnostics.map((d) => d.code).join(' ')), ['OKV4117']);
    assert.equal(existsSync(session.files.ledger) ? readFileSync(session.files.ledger, 'utf8') : '', before);
  });
});
