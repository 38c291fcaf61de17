import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialTransition, transition } from 'xstate';
import type { EvidenceDraft, EvidenceRecord } from '../../engine/model/index.js';
import { loadRegistry } from '../../engine/registry/index.js';
import { LIFECYCLES, type Refusal, boardFromFold, foldLedger, foldRecords, initialFold, ledgerFiles, loadBoard, loadCachedFold, loadFold, storeCachedFold, worldOf } from '../../engine/lifecycle/index.js';
import { recordEvents } from '../../engine/lifecycle/fold/fold.js';
import { WALK, digest, removeTemps, sealAll, tempCopy, writeLedger } from './support.js';
import { seeded } from '../support/seeded.js';

const { registry } = loadRegistry(WALK);

/** Random but well-formed evidence over the walk registry, seeded. */
export function randomDrafts(seed: number, n: number): EvidenceDraft[] {
  const { random, pick } = seeded(seed);
  const versions = [{ version: '1.2.0', commit: '1'.repeat(40) }, { version: '1.3.0', commit: '3'.repeat(40) }];
  let pin = versions[0]!;
  const drafts: EvidenceDraft[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.UTC(2026, 11, 1) + i * 60_000).toISOString();
    const actor = pick(['orbitkv-maintainers', 'acme-qa']);
    const profile = { engines: { alpha: pin }, adapter: digest(pick(['a', 'b'])) };
    const hashes = { before: digest('x'), after: digest(pick(['x', 'x', 'y'])) };
    const kind = pick(['pin', 'release', 'consume', 'result', 'result', 'result', 'accept', 'remove', 'drop', 'recheck']);
    const base = { at, actor };
    if (kind === 'pin') {
      pin = pick(versions);
      drafts.push({ ...base, type: 'pin.changed', subject: 'engine.alpha', data: { ...pin } });
    } else if (kind === 'release') drafts.push({ ...base, type: 'upstream.released', subject: 'upstream.alpha.101', data: { line: '1.3', version: '1.3.0' } });
    else if (kind === 'consume') drafts.push({ ...base, type: 'adapter.consumed-replacement', subject: pick(['hook.alpha.capture', 'gap.alpha.ordering']), profile, data: { condition: 0, adapterVersion: '1' } });
    else if (kind === 'result') {
      const gate = pick(['gate.alpha.restore', 'gate.alpha.acceptance', 'gate.alpha.workload']);
      drafts.push({ ...base, type: 'gate.result', subject: gate, profile, data: { result: pick(['pass', 'pass', 'fail']), hashes, ...(gate === 'gate.alpha.restore' ? { cell: { tier: pick(['dram', 'ssd']) } } : {}) } });
    } else if (kind === 'accept') drafts.push({ ...base, type: 'gate.acceptance', subject: 'gate.alpha.acceptance', profile, data: { verdict: 'accepted' } });
    else if (kind === 'remove') drafts.push({ ...base, type: 'hook.removed', subject: 'hook.alpha.capture', profile, data: { adapterVersion: '2' } });
    else if (kind === 'drop') drafts.push({ ...base, type: 'optimization.dropped', subject: 'hook.alpha.warmup', profile, data: { adapterVersion: '2' } });
    else drafts.push({ ...base, type: 'recheck', subject: pick(['engine.alpha', 'upstream.alpha.101']), data: { findings: 'checked', authorizes: 'nothing' } });
  }
  return drafts;
}

describe('lifecycle fold', () => {
  after(removeTemps);

  it('is deterministic: the same ledger folds to the same state, whole or in two parts', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { records } = sealAll(randomDrafts(seed, 300));
      const whole = foldLedger(registry, records);
      assert.deepStrictEqual(foldLedger(registry, records), whole);
      const cut = 1 + (seed * 37) % 299;
      const parts = foldRecords(registry, foldRecords(registry, initialFold(registry), records.slice(0, cut)), records.slice(cut));
      assert.deepStrictEqual(parts, whole);
    }
  });

  it('the batched table fold equals xstate transition() stepped record by record, whatever the batch size', () => {
    const world = worldOf(registry);
    /** The definition: each record's events handed to xstate's pure transition() as they come, no table, no batch, no cursor. */
    const reference = (records: readonly EvidenceRecord[]) => {
      const facts = initialFold(registry);
      const authors = new Set<string>();
      const snaps = world.order.map((t) => initialTransition(LIFECYCLES[t.lifecycle].machine, t.initial)[0]);
      const since: (string | null)[] = world.order.map(() => null);
      const refusals: Refusal[] = [];
      for (const record of records) {
        recordEvents(world, facts, authors, record, (slot, event) => {
          const before = snaps[slot]!;
          const [after] = transition(LIFECYCLES[world.order[slot]!.lifecycle].machine, before, event);
          snaps[slot] = after;
          if (after.value !== before.value) since[slot] = record.at;
          const refused = (after.context as { refused?: unknown[] }).refused;
          if (refused && refused !== (before.context as { refused?: unknown[] }).refused) refusals.push({ seq: record.seq, subject: world.order[slot]!.id, type: record.type, state: before.value as string });
        });
      }
      refusals.sort((a, b) => a.seq - b.seq || a.subject.localeCompare(b.subject));
      const contracts = Object.fromEntries(world.order.map((t, i) => [t.id, { value: snaps[i]!.value, context: snaps[i]!.context, since: since[i] }]));
      return { contracts, refusals, pins: facts.pins };
    };
    let moved = 0;
    for (const seed of [21, 22, 23, 24, 25, 26]) {
      const { records } = sealAll(randomDrafts(seed, 400));
      const expected = reference(records);
      for (const batch of [1, 3, 64, undefined]) {
        const fold = foldLedger(registry, records, { trace: false, ...(batch !== undefined ? { batch } : {}) });
        const got = Object.fromEntries(Object.entries(fold.contracts).map(([id, c]) => [id, { value: c.value, context: c.context, since: c.since }]));
        assert.deepStrictEqual(got, expected.contracts, `seed ${seed}, batch ${batch ?? 'default'}`);
        assert.deepStrictEqual(fold.refusals, expected.refusals, `seed ${seed}, batch ${batch ?? 'default'}: refusals`);
        assert.deepStrictEqual(fold.pins, expected.pins);
      }
      moved += Object.values(expected.contracts).filter((c) => c.since !== null).length;
    }
    assert.ok(moved > 20, `the sequences moved contracts (${moved})`);
  });

  it('moves contracts on random evidence (the specs above are not vacuous)', () => {
    const states = new Set<string>();
    for (const seed of [11, 12, 13, 14, 15, 16, 17, 18]) {
      const fold = foldLedger(registry, sealAll(randomDrafts(seed, 400)).records);
      for (const c of Object.values(fold.contracts)) for (const h of c.history) states.add(h.to);
    }
    for (const s of ['removable', 'removed', 'passed', 'released']) assert.ok(states.has(s), `never reached ${s}: ${[...states].join(', ')}`);
  });

  it('the snapshot cache gives the same fold as folding from the start, and only reads the appended bytes', () => {
    const dir = tempCopy();
    const files = ledgerFiles(dir);
    const { registry: copy } = loadRegistry(dir);
    const { records, text } = sealAll(randomDrafts(21, 200));
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const firstPart = text.split('\n').slice(0, 150).join('\n') + '\n';
    writeLedger(files.ledger, firstPart);
    const cache = join(dir, '.cache');
    const cold = loadFold(copy, files, { cacheDir: cache });
    assert.equal(cold.fromCache, false);
    writeLedger(files.ledger, text);
    const warm = loadFold(copy, files, { cacheDir: cache });
    assert.equal(warm.fromCache, true);
    const cold2 = foldLedger(copy, records);
    cold2.position = warm.state.position;
    // The snapshot leaves out per-contract history and evidence lists (explain folds from the start).
    const withoutEvidence = (s: typeof cold2) => ({ ...s, contracts: Object.fromEntries(Object.entries(s.contracts).map(([id, c]) => [id, { ...c, history: [], evidence: [] }])) });
    assert.deepStrictEqual(withoutEvidence(warm.state), withoutEvidence(cold2));
    assert.equal(warm.state.position.seq, 200);
  });

  it('status from the snapshot shows the same rows as a board built afresh, through any sequence of appends', () => {
    const dir = tempCopy();
    const files = ledgerFiles(dir);
    const { registry: copy } = loadRegistry(dir);
    const cache = join(dir, '.cache');
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const lines = sealAll(randomDrafts(41, 300)).text.split('\n').filter(Boolean);
    const at = '2027-02-01T00:00:00Z';
    let usedRows = 0;
    // Short appends reuse the snapshot's rows; a first status writes them.
    for (const end of [20, 21, 60, 61, 62, 150, 151, 300]) {
      writeLedger(files.ledger, lines.slice(0, end).map((l) => `${l}\n`).join(''));
      const { board, loaded } = loadBoard(copy, files, { cacheDir: cache, at });
      if (loaded.rows) usedRows++;
      const fresh = boardFromFold(copy, foldLedger(copy, sealAll(randomDrafts(41, 300)).records.slice(0, end)), at);
      assert.deepStrictEqual(board.rows, fresh.rows, `after ${end} records`);
    }
    assert.ok(usedRows >= 5, `rows came from the snapshot ${usedRows} times`);
  });

  it('the cache is not used when the ledger was rewritten or the registry changed', () => {
    const dir = tempCopy();
    const files = ledgerFiles(dir);
    const { registry: copy } = loadRegistry(dir);
    const cache = join(dir, '.cache');
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    writeLedger(files.ledger, sealAll(randomDrafts(31, 50)).text);
    loadFold(copy, files, { cacheDir: cache });
    assert.ok(loadCachedFold(cache, files, copy));
    writeLedger(files.ledger, sealAll(randomDrafts(32, 50)).text);
    assert.equal(loadCachedFold(cache, files, copy), undefined, 'rewritten ledger');
    const again = loadFold(copy, files, { cacheDir: cache });
    storeCachedFold(cache, files, copy, again.state, again.prefix!);
    writeFileSync(join(dir, 'policies', 'policy.recheck.yaml'), `${'# edited\n'}${loadRegistry(dir).registry.entry('policy.recheck')!.source.text.replace('maxAgeDays: 30', 'maxAgeDays: 14')}`);
    const { registry: edited } = loadRegistry(dir);
    assert.equal(loadCachedFold(cache, files, edited), undefined, 'edited registry');
  });

  it('a snapshot whose keys match but whose body was mangled is ignored, and the fold is made from the start', () => {
    const dir = tempCopy();
    const files = ledgerFiles(dir);
    const { registry: copy } = loadRegistry(dir);
    const cache = join(dir, '.cache');
    mkdirSync(join(dir, 'evidence'), { recursive: true });
    const { records, text } = sealAll(randomDrafts(33, 60));
    writeLedger(files.ledger, text);
    loadFold(copy, files, { cacheDir: cache });
    const name = readdirSync(cache).find((f) => f.startsWith('fold-'))!;
    // Re-sealed with the folder's key, so only the body's decoding stands between it and the board.
    const stored = readFileSync(join(cache, name), 'utf8');
    const body = JSON.parse(stored.slice(stored.indexOf('\n') + 1)) as { state: { position: unknown } };
    body.state.position = null;
    const key = readFileSync(join(cache, 'seal.key'));
    const bodyText = JSON.stringify(body);
    writeFileSync(join(cache, name), `${createHmac('sha256', key).update(bodyText).digest('hex')}\n${bodyText}`);
    const loaded = loadFold(copy, files, { cacheDir: cache });
    assert.equal(loaded.fromCache, false);
    assert.deepEqual(loaded.diagnostics, []);
    const fresh = foldLedger(copy, records);
    assert.deepStrictEqual(Object.fromEntries(Object.entries(loaded.state.contracts).map(([id, c]) => [id, [c.value, c.since]])), Object.fromEntries(Object.entries(fresh.contracts).map(([id, c]) => [id, [c.value, c.since]])));
  });
});

describe('lifecycle fold: warnings on the board', () => {
  const PINS = { alpha: { version: '1.2.0', commit: '1'.repeat(40) } };
  const at = (i: number) => `2026-12-03T10:0${i}:00Z`;

  it('a refused record (OKV4201), a pin the engine contract does not record (OKV4202), a disposition the evidence contradicts (OKV4204)', async () => {
    const { buildBoard } = await import('../../engine/lifecycle/index.js');
    const drafts: EvidenceDraft[] = [
      { at: at(1), actor: 'orbitkv-maintainers', type: 'hook.removed', subject: 'hook.alpha.warmup', profile: { engines: PINS, adapter: digest('a') }, data: { adapterVersion: '2' } },
      { at: at(2), actor: 'orbitkv-maintainers', type: 'gate.result', subject: 'gate.alpha.workload', profile: { engines: PINS, adapter: digest('a') }, data: { result: 'pass', hashes: { before: digest('x'), after: digest('x') } } },
      { at: at(3), actor: 'orbitkv-maintainers', type: 'optimization.dropped', subject: 'hook.alpha.warmup', profile: { engines: PINS, adapter: digest('a') }, data: { adapterVersion: '2' } },
      { at: at(4), actor: 'orbitkv-maintainers', type: 'pin.changed', subject: 'engine.alpha', data: { version: '1.2.1', commit: '2'.repeat(40) } },
    ];
    const board = buildBoard(registry, sealAll(drafts).records, { at: at(9) });
    // Contract-vs-ledger drift (OKV4207) has its own spec (spec/lifecycle/board.spec.ts).
    assert.deepEqual(board.diagnostics.filter((d) => d.code !== 'OKV4207').map((d) => [d.code, d.contract]), [
      ['OKV4201', 'hook.alpha.warmup'],
      ['OKV4202', 'engine.alpha'],
      ['OKV4204', 'hook.alpha.warmup'],
    ]);
    assert.equal(board.rows.find((r) => r.id === 'hook.alpha.warmup')!.state, 'removed');
  });
});

describe('ledger chain: sequence and record shape', () => {
  it('a skipped seq with an intact chain (OKV4104); a sealed record with a bad timestamp (OKV4111) or an earlier one (OKV4109)', async () => {
    const { GENESIS, parseLedger, sealLine } = await import('../../engine/lifecycle/index.js');
    const body = (seq: number, prev: string, atValue: string) => ({ actor: 'a', at: atValue, data: { findings: 'x', authorizes: 'nothing' }, prev, seq, subject: 'engine.alpha', type: 'recheck' });
    const one = sealLine(body(1, GENESIS, '2026-12-01T00:00:00Z'));
    const skipped = sealLine(body(3, one.hash, '2026-12-01T00:01:00Z'));
    assert.deepEqual(parseLedger(`${one.line}\n${skipped.line}\n`).diagnostics.map((d) => [d.code, d.range?.line]), [['OKV4104', 2]]);
    const badTime = sealLine(body(2, one.hash, 'yesterday'));
    assert.deepEqual(parseLedger(`${one.line}\n${badTime.line}\n`).diagnostics.map((d) => [d.code, d.range?.line]), [['OKV4111', 2]]);
    const earlier = sealLine(body(2, one.hash, '2026-11-30T23:59:00Z'));
    assert.deepEqual(parseLedger(`${one.line}\n${earlier.line}\n`).diagnostics.map((d) => [d.code, d.range?.line]), [['OKV4109', 2]]);
  });
});

describe('lifecycle fold: pins', () => {
  it('recording the pin already in force changes nothing; a new pin voids the passes bound to the old one', () => {
    const pins = (version: string, commit: string) => ({ engines: { alpha: { version, commit } }, adapter: digest('a') });
    const pass = (i: number, p: object): EvidenceDraft => ({ at: `2026-12-04T10:0${i}:00Z`, actor: 'orbitkv-maintainers', type: 'gate.result', subject: 'gate.alpha.workload', profile: p as never, data: { result: 'pass', hashes: { before: digest('x'), after: digest('x') } } });
    const pin = (i: number, version: string, commit: string): EvidenceDraft => ({ at: `2026-12-04T10:0${i}:00Z`, actor: 'orbitkv-maintainers', type: 'pin.changed', subject: 'engine.alpha', data: { version, commit } });
    const gate = (drafts: EvidenceDraft[]) => foldLedger(registry, sealAll(drafts).records).contracts['gate.alpha.workload']!.value;
    const first = pin(1, '1.2.0', '1'.repeat(40));
    assert.equal(gate([first, pass(2, pins('1.2.0', '1'.repeat(40)))]), 'passed');
    assert.equal(gate([first, pass(2, pins('1.2.0', '1'.repeat(40))), pin(3, '1.2.0', '1'.repeat(40))]), 'passed');
    assert.equal(gate([first, pass(2, pins('1.2.0', '1'.repeat(40))), pin(3, '1.2.1', '2'.repeat(40))]), 'pending');
  });
});
