import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, codes, digest, ledgerText, removeTemps, tempCopy } from './support.js';

/** Moves engine.alpha's pin in its YAML (every place it is recorded), as a maintainer does before `pin.changed`. */
export function movePin(dir: string, from: { version: string; commit: string }, to: { version: string; commit: string }): void {
  const file = join(dir, 'engines', 'engine.alpha.yaml');
  const line = (v: string) => `'${v.split('.').slice(0, 2).join('.')}'`;
  const text = readFileSync(file, 'utf8').split(`version: ${from.version}`).join(`version: ${to.version}`).split(from.commit).join(to.commit).replace(`line: ${line(from.version)}`, `line: ${line(to.version)}`);
  writeFileSync(file, text);
}

/**
 * One hook walked from kept to removed through realistic evidence — merge, release on a newer
 * line, pin bump, adapter consumption, gates re-run with hashes, independent acceptance — with
 * every wrong shortcut along the way refused or left without effect.
 */
describe('lifecycle walk: hook.alpha.capture from kept to removed', () => {
  after(removeTemps);
  const HOOK = 'hook.alpha.capture';
  const OLD = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };
  const NEW = { alpha: { version: '1.3.0', commit: '3'.repeat(40) } };
  const adapterA = digest('adapter 1.0 (before consumption)');
  const adapterB = digest('adapter 1.1 (consumes the callback)');
  const adapterC = digest('adapter 1.2 (hook removed)');
  const same = { before: digest('frozen files'), after: digest('frozen files') };
  let dir = '';
  let t = 0;
  const at = () => `2026-12-01T10:${String(t++).padStart(2, '0')}:00Z`;
  const add = (type: string, subject: string, data: object, profile?: object, actor = 'orbitkv-maintainers') =>
    cli(dir, 'evidence', 'add', type, '--subject', subject, '--actor', actor, '--at', at(), '--data', JSON.stringify(data), ...(profile ? ['--profile', JSON.stringify(profile)] : []));
  const state = async (id = HOOK) => {
    const r = await cli(dir, 'status', '--format', 'json');
    return (JSON.parse(r.out) as { rows: { id: string; state: string }[] }).rows.find((row) => row.id === id)!.state;
  };
  const refusedWithout = async (result: Promise<{ code: number; err: string }>, code: string) => {
    const before = ledgerText(dir);
    const r = await result;
    assert.equal(r.code, 1, r.err);
    assert.ok(codes(r.err).includes(code), `${code} expected in ${r.err}`);
    assert.equal(ledgerText(dir), before, 'nothing appended');
  };

  before(() => {
    dir = tempCopy();
  });

  it('starts kept, and can-remove says no', async () => {
    assert.equal((await add('pin.changed', 'engine.alpha', { version: '1.2.0', commit: OLD.alpha.commit })).code, 0);
    assert.equal(await state(), 'kept');
    assert.equal((await cli(dir, 'can-remove', HOOK)).code, 1);
  });

  it('refuses a removal while kept (OKV4009), appending nothing', async () => {
    await refusedWithout(add('hook.removed', HOOK, { adapterVersion: '1.2' }, { engines: OLD, adapter: adapterC }), 'OKV4009');
  });

  it('a merge and a recheck record the upstream, and authorize nothing', async () => {
    assert.equal((await add('upstream.state', 'upstream.alpha.101', { state: 'merged', commit: 'a'.repeat(40) })).code, 0);
    assert.equal((await add('recheck', 'engine.alpha', { findings: 'merged on main, not released', authorizes: 'nothing' })).code, 0);
    assert.equal(await state('upstream.alpha.101'), 'merged');
    assert.equal(await state(), 'kept');
  });

  it('consumption on a pin without the release does not count', async () => {
    assert.equal((await add('adapter.consumed-replacement', HOOK, { condition: 0, adapterVersion: '1.1' }, { engines: OLD, adapter: adapterB })).code, 0);
    assert.equal((await add('upstream.released', 'upstream.alpha.101', { line: '1.3', version: '1.3.0' })).code, 0);
    assert.equal(await state('upstream.alpha.101'), 'released');
    assert.equal(await state(), 'kept', 'released on 1.3, but the pin is on 1.2');
    const explain = await cli(dir, 'explain', HOOK);
    assert.match(explain.out, /released in 1\.3\.0, after the pin 1\.2\.0: move the pin and re-run the gates/);
    assert.match(explain.out, /next: move the pin/);
  });

  it('refuses evidence bound to a pin that is not current (OKV4008)', async () => {
    await refusedWithout(add('gate.result', 'gate.alpha.acceptance', { result: 'pass', hashes: same }, { engines: NEW, adapter: adapterB }), 'OKV4008');
  });

  it('the pin bump voids the earlier consumption; consuming on the new pins moves the hook on', async () => {
    // The engine contract moves first: a pin.changed to a version it does not record is refused (OKV4206).
    await refusedWithout(add('pin.changed', 'engine.alpha', { version: '1.3.0', commit: NEW.alpha.commit }), 'OKV4206');
    movePin(dir, OLD.alpha, NEW.alpha);
    assert.equal((await add('pin.changed', 'engine.alpha', { version: '1.3.0', commit: NEW.alpha.commit })).code, 0);
    assert.equal(await state(), 'kept');
    assert.equal((await add('adapter.consumed-replacement', HOOK, { condition: 0, adapterVersion: '1.1' }, { engines: NEW, adapter: adapterB })).code, 0);
    assert.equal(await state(), 'replacement-consumed');
  });

  it('passes on another adapter, or with different before/after hashes, do not count', async () => {
    for (const tier of ['dram', 'ssd']) assert.equal((await add('gate.result', 'gate.alpha.restore', { result: 'pass', cell: { tier }, hashes: same }, { engines: NEW, adapter: adapterA })).code, 0);
    let r = await cli(dir, 'can-remove', HOOK);
    assert.equal(r.code, 1);
    assert.match(r.out, /passed on another adapter/);
    assert.equal((await add('gate.result', 'gate.alpha.restore', { result: 'pass', cell: { tier: 'dram' }, hashes: { before: same.before, after: digest('edited during the run') } }, { engines: NEW, adapter: adapterB })).code, 0);
    r = await cli(dir, 'can-remove', HOOK);
    assert.match(r.out, /hashes differ/);
    assert.equal(await state(), 'replacement-consumed');
  });

  it("the author's own pass of an independent gate is not acceptance; the author cannot accept (OKV4009)", async () => {
    for (const tier of ['dram', 'ssd']) assert.equal((await add('gate.result', 'gate.alpha.restore', { result: 'pass', cell: { tier }, hashes: same }, { engines: NEW, adapter: adapterB })).code, 0);
    assert.equal((await add('gate.result', 'gate.alpha.acceptance', { result: 'pass', hashes: same }, { engines: NEW, adapter: adapterB })).code, 0);
    assert.equal(await state(), 'replacement-consumed');
    assert.equal(await state('gate.alpha.acceptance'), 'awaiting-acceptance');
    const r = await cli(dir, 'can-remove', HOOK);
    assert.match(r.out, /independent acceptance missing/);
    await refusedWithout(add('gate.acceptance', 'gate.alpha.acceptance', { verdict: 'accepted' }, { engines: NEW, adapter: adapterB }), 'OKV4009');
  });

  it('independent acceptance makes it removable; can-remove says yes', async () => {
    assert.equal((await add('gate.acceptance', 'gate.alpha.acceptance', { verdict: 'accepted' }, { engines: NEW, adapter: adapterB }, 'acme-qa')).code, 0);
    assert.equal(await state('gate.alpha.acceptance'), 'passed');
    assert.equal(await state(), 'removable');
    assert.equal((await cli(dir, 'can-remove', HOOK)).code, 0);
  });

  it('hook.removed moves it to removed; a later failure of a removal cell is a regression', async () => {
    assert.equal((await add('hook.removed', HOOK, { adapterVersion: '1.2' }, { engines: NEW, adapter: adapterC })).code, 0);
    assert.equal(await state(), 'removed');
    await refusedWithout(add('hook.removed', HOOK, { adapterVersion: '1.2' }, { engines: NEW, adapter: adapterC }), 'OKV4009');
    assert.equal((await add('gate.result', 'gate.alpha.restore', { result: 'fail', cell: { tier: 'ssd' }, hashes: same }, { engines: NEW, adapter: adapterC })).code, 0);
    assert.equal(await state(), 'regressed');
    const explain = await cli(dir, 'explain', HOOK, '--format', 'json');
    const history = (JSON.parse(explain.out) as { history: { from: string; to: string }[] }).history.map((h) => `${h.from}>${h.to}`);
    assert.deepEqual(history, ['kept>replacement-consumed', 'replacement-consumed>removable', 'removable>removed', 'removed>regressed']);
  });

  it('status --at shows the past', async () => {
    const r = await cli(dir, 'status', '--format', 'json', '--at', '2026-12-01T10:03:00Z');
    const row = (JSON.parse(r.out) as { rows: { id: string; state: string }[] }).rows.find((x) => x.id === HOOK)!;
    assert.equal(row.state, 'kept');
  });

  it('the ledger verifies; the report is written and then checks clean, and drifts after new evidence', async () => {
    assert.equal((await cli(dir, 'evidence', 'verify')).code, 0);
    assert.equal((await cli(dir, 'report')).code, 0);
    assert.match(readFileSync(join(dir, 'REGISTRY.md'), 'utf8'), /hook\.alpha\.capture` \| regressed/);
    assert.equal((await cli(dir, 'report', '--check')).code, 0);
    assert.equal((await add('recheck', 'engine.alpha', { findings: 'nothing new', authorizes: 'nothing' })).code, 0);
    const r = await cli(dir, 'report', '--check');
    assert.equal(r.code, 1);
    assert.deepEqual(codes(r.err), ['OKV4205']);
  });
});

describe('lifecycle walk: an opt-in hook leaves by dropping its optimization', () => {
  after(removeTemps);
  const HOOK = 'hook.alpha.warmup';
  const PINS = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };
  const same = { before: digest('files'), after: digest('files') };
  let dir = '';
  let t = 0;
  const at = () => `2026-12-02T10:${String(t++).padStart(2, '0')}:00Z`;
  const add = (type: string, subject: string, data: object, profile?: object) =>
    cli(dir, 'evidence', 'add', type, '--subject', subject, '--at', at(), '--data', JSON.stringify(data), ...(profile ? ['--profile', JSON.stringify(profile)] : []));
  const state = async () => (JSON.parse((await cli(dir, 'status', '--format', 'json')).out) as { rows: { id: string; state: string }[] }).rows.find((r) => r.id === HOOK)!.state;

  before(() => {
    dir = tempCopy();
  });

  it('refuses the drop before the matched workload passed, naming the missing pass, then accepts it', async () => {
    // The pin the evidence starts from is in the ledger, so a later move of the contract's pin does not re-date it.
    assert.equal((await add('pin.changed', 'engine.alpha', PINS.alpha)).code, 0);
    const refused = await add('optimization.dropped', HOOK, { adapterVersion: '1.1' }, { engines: PINS, adapter: digest('a') });
    assert.equal(refused.code, 1);
    assert.ok(codes(refused.err).includes('OKV4009'));
    assert.match(refused.err, /gate\.alpha\.workload \[-\]: no result on the current pins/);
    assert.equal((await add('gate.result', 'gate.alpha.workload', { result: 'pass', hashes: same }, { engines: PINS, adapter: digest('without warming') })).code, 0);
    assert.equal(await state(), 'removable');
    assert.equal((await add('optimization.dropped', HOOK, { adapterVersion: '1.1' }, { engines: PINS, adapter: digest('without warming') })).code, 0);
    assert.equal(await state(), 'removed');
  });

  it('a pin change sends the drop gate back to pending; a later failure on the new pin is a regression', async () => {
    movePin(dir, { version: '1.2.0', commit: '1'.repeat(40) }, { version: '1.2.1', commit: '2'.repeat(40) });
    assert.equal((await add('pin.changed', 'engine.alpha', { version: '1.2.1', commit: '2'.repeat(40) })).code, 0);
    const gate = (JSON.parse((await cli(dir, 'status', '--format', 'json')).out) as { rows: { id: string; state: string }[] }).rows.find((r) => r.id === 'gate.alpha.workload')!;
    assert.equal(gate.state, 'pending');
    assert.equal(await state(), 'removed');
    const pins = { alpha: { version: '1.2.1', commit: '2'.repeat(40) } };
    assert.equal((await add('gate.result', 'gate.alpha.workload', { result: 'fail', hashes: same }, { engines: pins, adapter: digest('without warming') })).code, 0);
    assert.equal(await state(), 'regressed');
  });
});
