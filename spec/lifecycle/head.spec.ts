import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { GENESIS, loadFold, openSession } from '../../engine/lifecycle/index.js';
import { LIFECYCLE_FIXTURES, cli, codes, ledgerText, removeTemps, tempCopy } from './support.js';

const KILL_AT_HEAD = join(LIFECYCLE_FIXTURES, '..', 'integrity', 'kill-at-head.ts');

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
    writeFileSync(head(dir), JSON.stringify({ seq: 2, hash: 'b'.repeat(64) }));
    assert.deepEqual(await everyone(dir), all('OKV4115'));
  });

  it('a head one record behind that names its record is an interrupted append: it verifies, warm and cold, and the next append moves it on; two behind is OKV4119', async () => {
    const dir = await withLedger();
    await cli(dir, 'status');
    const record = (i: number) => JSON.parse(ledgerText(dir).split('\n')[i]!) as { seq: number; hash: string };
    writeFileSync(head(dir), JSON.stringify({ seq: record(1).seq, hash: record(1).hash }));
    assert.deepEqual(await everyone(dir), [['0'], ['0'], ['0'], ['0']], 'head at seq 2 of 3');
    // No interrupted append leaves the head two records behind: every append anchors the end it scanned before writing.
    writeFileSync(head(dir), JSON.stringify({ seq: record(0).seq, hash: record(0).hash }));
    assert.deepEqual(await everyone(dir), all('OKV4119'), 'head at seq 1 of 3');
    writeFileSync(head(dir), JSON.stringify({ seq: record(1).seq, hash: record(1).hash }));
    assert.equal((await recheck(dir, 6)).code, 0);
    assert.match(ledgerText(dir), /"seq":4/);
    assert.deepEqual(JSON.parse(readFileSync(head(dir), 'utf8')), { seq: 4, hash: record(3).hash });
  });
});

/**
 * The first append's crash window: the append writes the genesis head `{seq: 0, hash: GENESIS}`
 * before its line, so a kill -9 between the line's fsync and the head's rename leaves one record
 * under the genesis head (one behind, like any later append), never a record without a head. The
 * states a kill leaves are built on disk; every command is asked cold, and warm from a snapshot
 * taken on the empty ledger (position seq 0, the one that once let a seq-0 head through) or after
 * the record.
 */
describe('ledger head: the first append killed before its head', () => {
  after(removeTemps);
  const add = (dir: string, i: number) => cli(dir, 'evidence', 'add', 'recheck', '--subject', 'engine.alpha', '--at', `2026-12-01T11:0${i}:00Z`, '--data', JSON.stringify({ findings: `f${i}`, authorizes: 'nothing' }));
  const head = (dir: string) => join(dir, 'evidence', 'ledger.head');
  const ledger = (dir: string) => join(dir, 'evidence', 'ledger.jsonl');
  const genesisHead = `${JSON.stringify({ seq: 0, hash: GENESIS })}\n`;
  const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { seq: number; hash: string };
  /** Exit code and OKV41xx codes of every command that reads the ledger; check and status read the cache in `dir/.cache`. */
  async function everyone(dir: string): Promise<string[][]> {
    const out: string[][] = [];
    for (const argv of [['evidence', 'verify'], ['status'], ['status', '--no-cache'], ['check', '--no-wheel', '--out', join(dir, 'out')]]) {
      const r = await cli(dir, ...argv);
      out.push([String(r.code), ...new Set(codes(r.err + (argv[0] === 'check' ? r.out : '')).filter((c) => c.startsWith('OKV41')))]);
    }
    return out;
  }
  const all = (code: string) => [['1', code], ['1', code], ['1', code], ['1', code]];
  const clean = [['0'], ['0'], ['0'], ['0']];
  /** The warm fold (from `dir/.cache`) and the cold one: the same codes, and the warm one did come from the snapshot. */
  function warmAndCold(dir: string, expectWarm: boolean): { warm: string[]; cold: string[] } {
    const session = openSession(process.cwd(), dir);
    const warm = loadFold(session.registry, session.files, { cacheDir: join(dir, '.cache'), deferStore: true });
    const cold = loadFold(session.registry, session.files, {});
    assert.equal(warm.fromCache, expectWarm, 'the warm fold resumed from the snapshot');
    return { warm: warm.diagnostics.map((d) => d.code), cold: cold.diagnostics.map((d) => d.code) };
  }
  /** The board as JSON, warm and cold, but for the clock it was printed at. */
  async function boards(dir: string): Promise<[unknown, unknown]> {
    const board = (text: string) => ({ ...(JSON.parse(text) as object), at: undefined });
    const warm = await cli(dir, 'status', '--format', 'json');
    const cold = await cli(dir, 'status', '--format', 'json', '--no-cache');
    return [board(warm.out), board(cold.out)];
  }

  it('the first append writes the genesis head before its line and its own head after it', async () => {
    const dir = tempCopy();
    assert.equal(existsSync(ledger(dir)), false);
    assert.equal((await add(dir, 0)).code, 0);
    const first = JSON.parse(ledgerText(dir).split('\n')[0]!) as { seq: number; hash: string; prev: string };
    assert.equal(first.prev, GENESIS);
    assert.deepEqual(readJson(head(dir)), { seq: 1, hash: first.hash });
  });

  for (const warmAt of ['the empty ledger', 'the record'] as const) {
    it(`killed between the line's fsync and the head (snapshot at ${warmAt}): every command verifies, cold and warm agree, the next append anchors both`, async () => {
      const dir = tempCopy();
      if (warmAt === 'the empty ledger') assert.equal((await cli(dir, 'status')).code, 0);
      assert.equal((await add(dir, 0)).code, 0);
      if (warmAt === 'the record') assert.equal((await cli(dir, 'status')).code, 0);
      // What the kill leaves: the line durable, the head still the genesis one written before it.
      writeFileSync(head(dir), genesisHead);
      assert.deepEqual(warmAndCold(dir, true), { warm: [], cold: [] });
      assert.deepEqual(await everyone(dir), clean);
      const [warm, cold] = await boards(dir);
      assert.deepEqual(warm, cold);
      assert.equal((await add(dir, 1)).code, 0);
      const lines = ledgerText(dir).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { seq: number; hash: string });
      assert.deepEqual(lines.map((r) => r.seq), [1, 2], 'nothing lost, nothing doubled');
      assert.deepEqual(readJson(head(dir)), { seq: 2, hash: lines[1]!.hash });
      assert.deepEqual(await everyone(dir), clean);
    });
  }

  it('killed after the genesis head, before the line: an empty ledger that verifies everywhere and takes the next append', async () => {
    const dir = tempCopy();
    assert.equal((await cli(dir, 'status')).code, 0);
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    writeFileSync(head(dir), genesisHead);
    assert.deepEqual(warmAndCold(dir, true), { warm: [], cold: [] });
    assert.deepEqual(await everyone(dir), clean);
    assert.equal((await add(dir, 0)).code, 0);
    assert.deepEqual(readJson(head(dir)).seq, 1);
  });

  /** Runs one real append in a child process that SIGKILLs itself at the head write `at` (fixtures/integrity/kill-at-head.ts). */
  function killedAppend(dir: string, at: 'after-genesis' | 'before-head'): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', KILL_AT_HEAD, dir, join(dir, '.cache'), at], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the append was not killed at ${at} (${code}): ${out}`))));
    });
  }

  for (const warmAt of ['the empty ledger', 'no snapshot'] as const) {
    it(`a real first append kill -9'd between its line's fsync and its head (${warmAt}) leaves the record under the genesis head: every command verifies, cold and warm agree, the next append anchors both`, async function () {
      this.timeout(30_000);
      const dir = tempCopy();
      if (warmAt === 'the empty ledger') assert.equal((await cli(dir, 'status')).code, 0);
      await killedAppend(dir, 'before-head');
      assert.equal(ledgerText(dir).split('\n').filter(Boolean).length, 1, 'the line is durable');
      assert.equal(readFileSync(head(dir), 'utf8'), genesisHead);
      assert.deepEqual(warmAndCold(dir, warmAt === 'the empty ledger'), { warm: [], cold: [] });
      assert.deepEqual(await everyone(dir), clean);
      const [warm, cold] = await boards(dir);
      assert.deepEqual(warm, cold);
      assert.equal((await add(dir, 1)).code, 0);
      assert.deepEqual(readJson(head(dir)).seq, 2);
      assert.deepEqual(await everyone(dir), clean);
    });
  }

  it('a real first append kill -9\'d after the genesis head, before its line: nothing appended, everything verifies, the next append goes through', async function () {
    this.timeout(30_000);
    const dir = tempCopy();
    await killedAppend(dir, 'after-genesis');
    assert.equal(readFileSync(head(dir), 'utf8'), genesisHead);
    assert.ok(!existsSync(ledger(dir)) || ledgerText(dir) === '');
    assert.deepEqual(await everyone(dir), clean);
    assert.equal((await add(dir, 0)).code, 0);
    assert.deepEqual(readJson(head(dir)).seq, 1);
  });

  for (const n of [1, 2]) {
    it(`a head deleted under ${n} record(s) is OKV4114, cold and warm, and nothing is appended`, async () => {
      const dir = tempCopy();
      for (let i = 0; i < n; i++) assert.equal((await add(dir, i)).code, 0);
      assert.equal((await cli(dir, 'status')).code, 0);
      rmSync(head(dir));
      assert.deepEqual(warmAndCold(dir, true), { warm: ['OKV4114'], cold: ['OKV4114'] });
      assert.deepEqual(await everyone(dir), all('OKV4114'));
      const before = ledgerText(dir);
      const r = await add(dir, 5);
      assert.equal(r.code, 1);
      assert.deepEqual(codes(r.err), ['OKV4114']);
      assert.equal(ledgerText(dir), before);
      // --repair mends torn lines only: a missing head is not an interrupted append's trace.
      assert.equal((await cli(dir, 'evidence', 'verify', '--repair')).code, 1);
      assert.equal(existsSync(head(dir)), false);
    });
  }

  for (const warmAt of [0, 1, 2]) {
    it(`a seq-0 head under two records is OKV4119, cold and warm (snapshot at seq ${warmAt})`, async () => {
      const dir = tempCopy();
      if (warmAt === 0) assert.equal((await cli(dir, 'status')).code, 0);
      for (let i = 0; i < 2; i++) {
        assert.equal((await add(dir, i)).code, 0);
        if (warmAt === i + 1) assert.equal((await cli(dir, 'status')).code, 0);
      }
      writeFileSync(head(dir), genesisHead);
      assert.deepEqual(warmAndCold(dir, true), { warm: ['OKV4119'], cold: ['OKV4119'] });
      assert.deepEqual(await everyone(dir), all('OKV4119'));
      const r = await add(dir, 5);
      assert.equal(r.code, 1);
      assert.deepEqual(codes(r.err), ['OKV4119']);
    });
  }

  it('a seq-0 head with another hash than the genesis one is OKV4112', async () => {
    const dir = tempCopy();
    assert.equal((await add(dir, 0)).code, 0);
    writeFileSync(head(dir), JSON.stringify({ seq: 0, hash: 'a'.repeat(64) }));
    assert.deepEqual(await everyone(dir), all('OKV4112'));
  });
});
