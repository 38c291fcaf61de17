/**
 * What the board says about a second product's registry (the walk registry, written from
 * scratch): releases after the pin, removed hooks without covering passes, refusals that name what
 * is missing, and YAML that claims what the ledger does not record.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRegistry } from '../../engine/registry/index.js';
import { buildBoard } from '../../engine/lifecycle/index.js';
import { WALK, cli, codes, digest, removeTemps, sealAll, tempCopy } from './support.js';

const PIN = { version: '1.2.0', commit: '1'.repeat(40) };
const PINS = { alpha: PIN };
const same = { before: digest('frozen'), after: digest('frozen') };

/** A hook the contract declares removed: its replacement released in 1.2.0 (untracked), covered by the workload gate. */
const RETIRED = `# yaml-language-server: $schema=../schema/hook.json
kind: hook
id: hook.alpha.retired
title: AROUND Worker.prepare, retired
source:
  document: Lifecycle walk registry
  section: Hooks
engine: alpha
target: alpha.worker.Worker.prepare
hookType: AROUND
signature:
  parameters:
    - name: self
      kind: positional-or-keyword
      hasDefault: false
protects:
  text: Preparation order.
  lifecycles:
    - restore
activation:
  mode: always
replacement:
  status: released
  line: '1.2'
  version: 1.2.0
removalGate:
  upstream:
    - requires: The prepare callback released on the pinned line, consumed by the adapter.
  gates:
    - gate.alpha.workload
disposition:
  state: removed
  disposition: Replaced by the released prepare callback.
  coveredBy:
    - gate.alpha.workload
`;

describe('board: a second product\'s registry', () => {
  after(removeTemps);

  it('a replacement released after the pin says so, and says to move the pin (not to wait for a release)', () => {
    const { registry } = loadRegistry(WALK);
    const { records } = sealAll([
      { at: '2026-12-01T10:00:00Z', actor: 'orbitkv-maintainers', type: 'upstream.released', subject: 'upstream.alpha.101', data: { line: '1.2', version: '1.2.1' } },
    ]);
    const row = buildBoard(registry, records, { at: '2026-12-01T11:00:00Z' }).rows.find((r) => r.id === 'hook.alpha.capture')!;
    assert.equal(row.state, 'kept');
    assert.ok(row.blockers.includes('upstream.alpha.101: released in 1.2.1, after the pin 1.2.0: move the pin and re-run the gates'), row.blockers.join('\n'));
    assert.match(row.next, /^(recheck .*; then )?move the pin/);
    assert.doesNotMatch(row.next, /wait for/);
  });

  it('can-remove on a removed hook says no until its covering gate cells passed; explain names the release the YAML claims', async () => {
    const dir = tempCopy();
    writeFileSync(join(dir, 'hooks', 'hook.alpha.retired.yaml'), RETIRED);
    let r = await cli(dir, 'can-remove', 'hook.alpha.retired');
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /removed, but its covering gate cells have not passed/);
    assert.match(r.out, /gate\.alpha\.workload \[-\] none .*no result on the current pins/);
    const explain = await cli(dir, 'explain', 'hook.alpha.retired');
    assert.match(explain.out, /release: no release recorded in the ledger/);
    assert.ok(codes(explain.err).includes('OKV4207'), explain.err);
    assert.match(explain.err, /hooks\/hook\.alpha\.retired\.yaml:\d+:\d+ - warning OKV4207: .*replacement released in 1\.2\.0 on 1\.2/);
    assert.equal((await cli(dir, 'evidence', 'add', 'gate.result', '--subject', 'gate.alpha.workload', '--at', '2026-12-01T10:00:00Z', '--data', JSON.stringify({ result: 'pass', hashes: same }), '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') }))).code, 0);
    r = await cli(dir, 'can-remove', 'hook.alpha.retired');
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /yes \(already removed; its covering gate cells passed\)/);
  });

  it('a refused hook.removed names the condition really missing: every gate passed, the replacement is not consumed', async () => {
    const dir = tempCopy();
    const add = (type: string, subject: string, at: string, data: object, profile?: object, actor = 'orbitkv-maintainers') =>
      cli(dir, 'evidence', 'add', type, '--subject', subject, '--actor', actor, '--at', at, '--data', JSON.stringify(data), ...(profile ? ['--profile', JSON.stringify(profile)] : []));
    const profile = { engines: PINS, adapter: digest('b') };
    assert.equal((await add('upstream.released', 'upstream.alpha.101', '2026-12-01T10:00:00Z', { line: '1.2', version: '1.2.0' })).code, 0);
    for (const [i, tier] of ['dram', 'ssd'].entries()) assert.equal((await add('gate.result', 'gate.alpha.restore', `2026-12-01T10:0${i + 1}:00Z`, { result: 'pass', cell: { tier }, hashes: same }, profile)).code, 0);
    assert.equal((await add('gate.result', 'gate.alpha.acceptance', '2026-12-01T10:03:00Z', { result: 'pass', hashes: same }, profile, 'acme-qa')).code, 0);
    const refused = await add('hook.removed', 'hook.alpha.capture', '2026-12-01T10:04:00Z', { adapterVersion: '2' }, profile);
    assert.equal(refused.code, 1);
    assert.ok(codes(refused.err).includes('OKV4009'));
    assert.match(refused.err, /upstream\.alpha\.101 is released but not consumed by the adapter on the current pins/);
    assert.doesNotMatch(refused.err, /gates have not all passed|gate\.alpha\.(restore|acceptance) \[/);
  });

  it('YAML that claims a recheck, a state or a release the ledger lacks is named at its field (OKV4207); the board follows the ledger', () => {
    const dir = tempCopy();
    const { registry } = loadRegistry(dir);
    // engine.alpha says lastRecheck: 2026-11-20, six days before; the ledger has no recheck.
    const board = buildBoard(registry, [], { at: '2026-11-26T12:00:00Z' });
    const engine = board.rows.find((r) => r.id === 'hook.alpha.capture')!;
    assert.match(engine.next, /never rechecked/);
    const drift = board.diagnostics.filter((d) => d.code === 'OKV4207');
    const text = readFileSync(join(dir, 'engines', 'engine.alpha.yaml'), 'utf8').split('\n');
    const at = (file: string, key: string) => readFileSync(join(dir, file), 'utf8').split('\n').findIndex((l) => l.startsWith(`${key}:`)) + 1;
    assert.ok(text.length > 0);
    assert.deepEqual(drift.map((d) => `${d.contract} ${d.range?.line}`).sort(), [
      `engine.alpha ${at('engines/engine.alpha.yaml', 'lastRecheck')}`,
      `upstream.alpha.101 ${at('upstreams/upstream.alpha.101.yaml', 'checked')}`,
      `upstream.alpha.101 ${at('upstreams/upstream.alpha.101.yaml', 'state')}`,
    ].sort());
    // Recording what the YAML says clears each warning: one source of truth, the ledger.
    const upstream = registry.get('upstream.alpha.101')!;
    assert.equal(upstream.kind, 'upstream');
    const { records } = sealAll([
      { at: '2026-11-20T09:00:00Z', actor: 'orbitkv-maintainers', type: 'recheck', subject: 'engine.alpha', data: { findings: 'checked', authorizes: 'nothing' } },
      { at: '2026-11-20T09:01:00Z', actor: 'orbitkv-maintainers', type: 'upstream.state', subject: 'upstream.alpha.101', data: { state: upstream.kind === 'upstream' ? upstream.state : 'open' } },
    ]);
    const after = buildBoard(registry, records, { at: '2026-11-26T12:00:00Z' });
    assert.deepEqual(after.diagnostics.filter((d) => d.code === 'OKV4207').map((d) => d.contract), []);
  });

  it('contract and ledger text holding ESC, CR, bidi overrides or a newline with ::error:: is printed escaped by status, check, explain and can-remove', async () => {
    const dir = tempCopy();
    const file = join(dir, 'hooks', 'hook.alpha.capture.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('  reason: No released pre-capture callback.', '  reason: "red \\e[31mtext\\r\\n::error::forged\\u202e"').replace('title: BEFORE Worker.capture installs restore events before graph capture', 'title: "title\\e]0;pwned\\a\\n::warning::x"'));
    const actor = 'qa\u001b[2J\n::error::actor';
    assert.equal((await cli(dir, 'evidence', 'add', 'gate.result', '--subject', 'gate.alpha.restore', '--actor', actor, '--at', '2026-12-01T10:00:00Z', '--data', JSON.stringify({ result: 'fail', cell: { tier: 'dram' } }), '--profile', JSON.stringify({ engines: PINS, adapter: digest('a') }))).code, 0);
    const outputs = [
      await cli(dir, 'status'), await cli(dir, 'status', '--format', 'markdown'), await cli(dir, 'check', '--out', join(dir, 'out'), '--no-wheel'),
      await cli(dir, 'explain', 'hook.alpha.capture'), await cli(dir, 'explain', 'gate.alpha.restore'), await cli(dir, 'can-remove', 'hook.alpha.capture'),
    ];
    const all = outputs.map((r) => r.out + r.err).join('\n');
    assert.match(all, /red \\x1b\[31mtext\\r\\n::error::forged\\u202e/, 'the reason is shown, escaped');
    assert.match(all, /qa\\x1b\[2J\\n::error::actor/, 'the actor is shown, escaped');
    for (const [i, r] of outputs.entries()) {
      const text = r.out + r.err;
      assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, `output ${i} holds a control character`);
      assert.doesNotMatch(text, /^::/m, `output ${i} starts a line with a workflow command`);
    }
  });
});
