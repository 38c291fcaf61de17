import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendEvidenceBatch, ledgerAdmission, ledgerFiles, readLedgerFile } from '../../engine/lifecycle/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
import { cli, codes, digest, ledgerText, removeTemps, SPEC_NOW, tempCopy } from './support.js';

/** Moves engine.alpha's pin from 1.2.0 to 1.3.0 in its YAML, as a maintainer does before `pin.changed`. */
function movePin(dir: string): void {
  const file = join(dir, 'engines', 'engine.alpha.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').split('version: 1.2.0').join('version: 1.3.0').split('1'.repeat(40)).join('3'.repeat(40)).replace("line: '1.2'", "line: '1.3'"));
}

/**
 * The one rule for a gate cell, on the walk registry (every gate there hashes the engine
 * installation): a result marked as run on an engine stand-in never passes such a gate, whatever
 * pins it names; the same result without the mark (a claim that the real engine ran) does; and a
 * pin change voids either.
 */
describe('lifecycle/cell-pass: stand-in results and the real engine', () => {
  after(removeTemps);
  const GATE = 'gate.alpha.workload';
  const OLD = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };
  const adapter = digest('adapter under test');
  const same = { before: digest('frozen'), after: digest('frozen') };
  const STAND_IN = { engine: 'stand-in', device: 'cpu' };
  let dir = '';
  let t = 0;
  const at = () => `2026-12-01T11:${String(t++).padStart(2, '0')}:00Z`;
  const add = (type: string, subject: string, data: object, profile?: object) =>
    cli(dir, 'evidence', 'add', type, '--subject', subject, '--at', at(), '--data', JSON.stringify(data), ...(profile ? ['--profile', JSON.stringify(profile)] : []));
  const row = async (id = GATE) => {
    const r = await cli(dir, 'status', '--format', 'json');
    return (JSON.parse(r.out) as { rows: { id: string; state: string }[] }).rows.find((x) => x.id === id)!;
  };

  before(async () => {
    dir = tempCopy();
    assert.equal((await add('pin.changed', 'engine.alpha', OLD.alpha)).code, 0);
  });

  it('a pass marked as run on a stand-in, bound to the pins, leaves an engine-and-adapter gate pending; explain says stand-in', async () => {
    const r = await add('gate.result', GATE, { result: 'pass', hashes: same, where: STAND_IN }, { engines: OLD, adapter });
    assert.equal(r.code, 0, r.err);
    assert.equal((await row()).state, 'pending');
    const explain = await cli(dir, 'explain', GATE, '--format', 'json');
    assert.match(explain.out, /stand-in/);
  });

  it('the same pass without the mark (the real engine ran) passes it', async () => {
    assert.equal((await add('gate.result', GATE, { result: 'pass', hashes: same }, { engines: OLD, adapter })).code, 0);
    assert.equal((await row()).state, 'passed');
  });

  it('refuses a malformed mark (OKV4005), appending nothing', async () => {
    const before = ledgerText(dir);
    for (const where of [{ engine: 'emulated', device: 'cpu' }, { engine: 'stand-in' }, { engine: 'stand-in', device: 'cpu', real: true }, 'stand-in']) {
      const r = await add('gate.result', GATE, { result: 'pass', hashes: same, where }, { engines: OLD, adapter });
      assert.equal(r.code, 1);
      assert.ok(codes(r.err).includes('OKV4005'), r.err);
    }
    assert.equal(ledgerText(dir), before);
  });

  it('a pin change sends the gates passed on that pin back to pending', async () => {
    const gate = 'gate.alpha.restore';
    for (const tier of ['dram', 'ssd']) assert.equal((await add('gate.result', gate, { result: 'pass', cell: { tier }, hashes: same }, { engines: OLD, adapter })).code, 0);
    assert.equal((await row(gate)).state, 'passed');
    movePin(dir);
    assert.equal((await add('pin.changed', 'engine.alpha', { version: '1.3.0', commit: '3'.repeat(40) })).code, 0);
    assert.equal((await row(gate)).state, 'pending');
    assert.equal((await row()).state, 'pending');
  });
});

describe('lifecycle/ledger: a batch append is all or none', () => {
  after(removeTemps);
  const PIN = { version: '1.2.0', commit: '1'.repeat(40) };
  const adapter = digest('adapter');
  const same = { before: digest('frozen'), after: digest('frozen') };
  const now = () => Date.parse(SPEC_NOW);

  it('judges each record after the ones before it in the batch, and appends them all under one head', () => {
    const dir = tempCopy();
    const registry = loadRegistry(dir).registry;
    const files = ledgerFiles(dir);
    // Without the pin.changed before it, the result would be refused (a profile on no pin).
    const drafts = [
      { actor: 'spec', type: 'pin.changed', subject: 'engine.alpha', data: PIN },
      { actor: 'spec', type: 'gate.result', subject: 'gate.alpha.workload', profile: { engines: { alpha: PIN }, adapter }, data: { result: 'pass', hashes: same } },
    ] as never[];
    const r = appendEvidenceBatch(files, drafts, ledgerAdmission(registry, files, { now }));
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.records.map((x) => x.seq), [1, 2]);
    assert.equal(r.records[1]!.prev, r.records[0]!.hash);
    const read = readLedgerFile(files);
    assert.deepEqual(read.diagnostics, []);
    assert.equal(read.records.length, 2);
    assert.equal(JSON.parse(ledgerText(dir).split('\n')[1]!).hash, r.records[1]!.hash);
  });

  it('appends nothing when its last record is refused, and says which (OKV4010)', () => {
    const dir = tempCopy();
    const registry = loadRegistry(dir).registry;
    const files = ledgerFiles(dir);
    const drafts = [
      { actor: 'spec', type: 'pin.changed', subject: 'engine.alpha', data: PIN },
      { actor: 'spec', type: 'gate.result', subject: 'gate.alpha.workload', profile: { engines: { alpha: PIN }, adapter }, data: { result: 'pass', hashes: same } },
      { actor: 'spec', type: 'gate.result', subject: 'gate.alpha.restore', profile: { engines: { alpha: PIN }, adapter }, data: { result: 'pass', cell: { tier: 'tape' }, hashes: same } },
    ] as never[];
    const r = appendEvidenceBatch(files, drafts, ledgerAdmission(registry, files, { now }));
    assert.equal(r.refused, 2);
    assert.deepEqual(r.records, []);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['OKV4010']);
    assert.equal(readLedgerFile(files).records.length, 0);
  });
});
