import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIFECYCLE_FIXTURES, cli, removeTemps, tempCopy } from '../lifecycle/support.js';

describe('integrity: 8 concurrent appenders lose and duplicate nothing', function () {
  this.timeout(600_000);
  after(removeTemps);

  it('8 processes × 6 records: 48 records, seq 1..48, each exactly once, one intact chain', async () => {
    const dir = tempCopy();
    const PER = 6;
    const writers = Array.from({ length: 8 }, (_, i) => `writer-${i}`);
    const run = (actor: string) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(LIFECYCLE_FIXTURES, 'append-many.ts'), dir, String(PER), actor], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${actor} exited ${code}: ${err}`))));
      });
    await Promise.all(writers.map(run));
    const records = readFileSync(join(dir, 'evidence', 'ledger.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { seq: number; actor: string; data: { findings: string } });
    assert.equal(records.length, 8 * PER);
    assert.deepEqual(records.map((r) => r.seq), Array.from({ length: 8 * PER }, (_, i) => i + 1));
    const findings = records.map((r) => r.data.findings);
    assert.equal(new Set(findings).size, findings.length, 'a record appended twice');
    for (const w of writers) for (let i = 0; i < PER; i++) assert.ok(findings.includes(`${w} ${i}`), `${w} ${i} lost`);
    assert.equal((await cli(dir, 'evidence', 'verify')).code, 0);
  });
});

describe('integrity: the ledger lock is taken atomically, never judged stale and taken over', function () {
  this.timeout(120_000);
  after(removeTemps);

  /** The lock-holder fixture on `lock`: it logs `NAME in`, holds until `go` exists, logs `NAME out`. */
  function start(lock: string, log: string, name: string, go: string, waitMs: number, times = 1): { child: ChildProcess; held: Promise<void>; exit: Promise<string> } {
    const child = spawn(process.execPath, ['--import', 'tsx', join(LIFECYCLE_FIXTURES, 'lock-holder.ts'), lock, log, name, String(waitMs), go, String(times)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let said: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (said = resolve));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('held')) said();
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise<string>((resolve) => child.on('close', (code) => resolve(`${name} exited ${code}: ${out}${err}`)));
    return { child, held, exit };
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('a holder stopped (SIGSTOP) for longer than any lease keeps the lock: the next appender waits for it and enters after it left', async () => {
    const dir = tempCopy();
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const lock = join(dir, 'evidence', 'ledger.jsonl.lock');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const a = start(lock, log, 'A', join(dir, 'go-a'), 1000);
    await a.held;
    a.child.kill('SIGSTOP');
    // The race window of a lease lock: the holder is alive but silent, past the lease (4 s before).
    writeFileSync(join(dir, 'go-b'), '');
    const b = start(lock, log, 'B', join(dir, 'go-b'), 30_000);
    try {
      await sleep(5_500);
      assert.equal(readFileSync(log, 'utf8'), 'A in\n', 'B entered while A held the lock');
      a.child.kill('SIGCONT');
      writeFileSync(join(dir, 'go-a'), '');
      const outcomes = await Promise.all([a.exit, b.exit]);
      assert.ok(outcomes.every((o) => / exited 0: /.test(o)), outcomes.join('\n'));
      assert.equal(readFileSync(log, 'utf8'), 'A in\nA out\nB in\nB out\n');
    } finally {
      // A failed assertion leaves no stopped process behind.
      for (const c of [a.child, b.child]) if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGCONT');
        c.kill('SIGKILL');
      }
    }
  });

  it('8 processes taking the lock at once, 20 times each: every hold is alone (in and out alternate, one name at a time)', async () => {
    const dir = tempCopy();
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const lock = join(dir, 'evidence', 'ledger.jsonl.lock');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    // Each holds for a moment (its go file exists from the start), so holds overlap unless the lock excludes.
    writeFileSync(join(dir, 'go'), '');
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => start(lock, log, `p${i}`, join(dir, 'go'), 60_000, 20).exit));
    assert.ok(outcomes.every((o) => / exited 0: /.test(o)), outcomes.join('\n'));
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 8 * 20 * 2);
    for (let i = 0; i < lines.length; i += 2) {
      const name = lines[i]!.split(' ')[0];
      assert.deepEqual([lines[i], lines[i + 1]], [`${name} in`, `${name} out`], `holds overlap at log line ${i + 1}`);
    }
  });
});
