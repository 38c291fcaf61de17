import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
