import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIFECYCLE_FIXTURES, cli, codes, removeTemps, tempCopy } from '../lifecycle/support.js';

const LOOP = join(LIFECYCLE_FIXTURES, '..', 'integrity', 'append-loop.ts');

/**
 * Starts an appender and kills it with SIGKILL `delay` ms after it is ready; resolves with the
 * records it acknowledged and the milliseconds between its readiness and each acknowledgement.
 */
function appendUntilKilled(dir: string, tag: string, delay: number): Promise<{ acked: Map<number, string>; gaps: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOOP, dir, join(dir, '.cache'), tag], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<number, string>();
    const gaps: number[] = [];
    let last = 0;
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      const now = performance.now();
      // Acks that arrive together share one gap: the time since the last is split among them.
      const before = (out.match(/^ack /gm) ?? []).length;
      out += d.toString();
      const after = (out.match(/^ack /gm) ?? []).length;
      if (last > 0 && after > before) for (let i = before; i < after; i++) gaps.push((now - last) / (after - before));
      if (after > before) last = now;
      if (out.startsWith('ready\n') && !(child as { armed?: boolean }).armed) {
        (child as { armed?: boolean }).armed = true;
        last = now;
        setTimeout(() => child.kill('SIGKILL'), delay);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const line of out.split('\n')) {
        const m = /^ack (\d+) ([0-9a-f]{64})$/.exec(line);
        if (m) acked.set(Number(m[1]), m[2]!);
      }
      if (signal !== 'SIGKILL') reject(new Error(`appender ended by itself (${code}): ${err}`));
      else resolve({ acked, gaps });
    });
  });
}

/** The kill window: 120 ms, or four appends' time as this machine runs them now (under load an append takes longer). */
const KILL_WINDOW_MIN = 120;
const KILLS = 50;
/** Past `KILLS`, appenders keep being killed (up to this many) until more records than kills were acknowledged. */
const KILLS_MAX = 100;

describe('integrity: kill -9 at random points of an append loses no acknowledged record', function () {
  this.timeout(600_000);
  after(removeTemps);

  it('50 appenders killed at random moments: every acknowledged record is in the ledger, which verifies (after --repair of a torn end)', async () => {
    const dir = tempCopy();
    const acknowledged = new Map<number, string>();
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    let repaired = 0;
    const gaps: number[] = [];
    let kills = 0;
    for (let k = 0; k < KILLS_MAX && (k < KILLS || acknowledged.size <= KILLS); k++) {
      // The window follows the append's measured time (median of the gaps seen so far), so the kills land among appends at any load.
      const perAppend = gaps.length ? [...gaps].sort((a, b) => a - b)[gaps.length >> 1]! : 0;
      const window = Math.max(KILL_WINDOW_MIN, 4 * perAppend);
      const run = await appendUntilKilled(dir, `k${k}`, Math.floor(random() * window));
      kills++;
      for (const [seq, hash] of run.acked) acknowledged.set(seq, hash);
      gaps.push(...run.gaps);
      if (gaps.length > 200) gaps.splice(0, gaps.length - 200);
      let v = await cli(dir, 'evidence', 'verify');
      if (v.code !== 0) {
        assert.deepEqual(codes(v.err), ['OKV4106'], `after kill ${k}: only a torn last line may be left\n${v.err}`);
        assert.equal((await cli(dir, 'evidence', 'verify', '--repair')).code, 0);
        repaired++;
        v = await cli(dir, 'evidence', 'verify');
      }
      assert.equal(v.code, 0, `after kill ${k}: ${v.err}`);
    }
    const records = readFileSync(join(dir, 'evidence', 'ledger.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { seq: number; hash: string });
    const bySeq = new Map(records.map((r) => [r.seq, r.hash]));
    for (const [seq, hash] of acknowledged) assert.equal(bySeq.get(seq), hash, `acknowledged record ${seq} lost`);
    assert.ok(acknowledged.size > KILLS, `only ${acknowledged.size} records were acknowledged in ${kills} kills: the kills did not land among appends`);
    // The board after the crashes equals a cold fold.
    const warm = await cli(dir, 'status', '--format', 'json');
    const cold = await cli(dir, 'status', '--format', 'json', '--no-cache');
    assert.equal(warm.code, 0, warm.err);
    // The same board but for the clock it was printed at.
    const board = (text: string) => ({ ...(JSON.parse(text) as object), at: undefined });
    assert.deepEqual(board(warm.out), board(cold.out));
    process.stdout.write(`      (${kills} kills, ${acknowledged.size} acknowledged, ${records.length} in the ledger, ${repaired} torn ends repaired)\n`);
  });
});
