/**
 * Ledger fold benchmark: 100,000 evidence records over a synthetic registry of 10,000 contracts.
 * - cold: as `status` without a cache (`loadFold`): stream the ledger file through the hash-chain
 *   check into the fold, then build the board (target < 2 s);
 * - warm: `status` after an append by the tool itself (`appendEvidence` with the admission the CLI
 *   uses), with the snapshot a status wrote before it = check the snapshot's seal, re-hash the
 *   ledger prefix it covers, read, verify and fold the new bytes, check the head, rebuild the board
 *   rows of the contracts they moved (target < 0.3 s); and the same after 100 records arrive from
 *   outside (a pull);
 * - the append itself: its locked scan folds the whole verified ledger (admission never trusts a
 *   cache), so it costs a cold fold by design;
 * - per event: one table step against one xstate `transition()` on the same hook events;
 * - with `LEDGER_BENCH_SIGNED=1`, the same records all signed: a cold status and the scan alone
 *   (every signature verified), against the same work on the unsigned ledger.
 * Each row's peer does the same work in the same run ("same work: ..."), or is a lower bound on
 * it ("bound: ..."), as its name says.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transition, initialTransition } from 'xstate';
import type { Contract, EvidenceDraft, GateContract, HookContract, UpstreamContract } from '../../engine/model/index.js';
import { Registry, type ContractEntry } from '../../engine/registry/index.js';
import { createHash } from 'node:crypto';
import {
  GENESIS, type SshSigningKey, appendEvidence, parseOpenSshPrivateKey, signMessage, signedMessage, boardFromFold, canonicalJson, compileTable, foldLedger, hookLifecycle, ledgerAdmission, ledgerFiles, snapshotOnCommit, loadBoard, registryFingerprint, loadFold, readLedgerFile, scanLedgerFile, sealLine, sha256, tableStart, tableStep, worldOf,
  type LifecycleEvent,
} from '../../engine/lifecycle/index.js';
import { seeded } from '../support/seeded.js';
import { type BenchResult, costRatio, printReport } from './report.js';

const CONTRACTS = 10_000;
/** `LEDGER_BENCH_RECORDS` shrinks the run for profiling; the figure is 100,000. */
const RECORDS = Number(process.env['LEDGER_BENCH_RECORDS'] ?? 100_000);
const APPENDED = 100;

const { random, pick } = seeded(42);
const hex = (n: number, width = 64) => n.toString(16).padStart(width, '0');

function syntheticRegistry(root: string): Registry {
  const src = { document: 'bench', section: 'synthetic' };
  const contracts: Contract[] = [];
  const engines = ['eng0', 'eng1'];
  for (const [i, name] of engines.entries()) contracts.push({ kind: 'engine', id: `engine.${name}`, title: name, source: src, name, distribution: name, role: 'runtime', version: '1.0.0', commit: hex(i + 1, 40), line: '1.0', recordedIn: [], lastRecheck: '2026-10-01' });
  contracts.push({ kind: 'policy', id: 'policy.recheck', title: 'recheck', source: src, policy: { rule: 'recheck', maxAgeDays: 30 } });
  const upstreams: UpstreamContract[] = [];
  for (let i = 0; i < 1000; i++) upstreams.push({ kind: 'upstream', id: `upstream.u${i}`, title: `PR ${i}`, source: src, engine: pick(engines), pr: i + 1, state: 'open', releasedIn: [], checked: '2026-10-01', purpose: 'bench' });
  const gates: GateContract[] = [];
  for (let i = 0; i < 2000; i++) {
    const cells = pick([0, 0, 1, 2]);
    gates.push({
      kind: 'gate', id: `gate.g${i}`, title: `gate ${i}`, source: src, scenario: { runner: 'external', procedure: 'bench' }, environment: { gpu: false },
      qualifies: 'bench', evidence: { hashes: 'engine-and-adapter', independent: random() < 0.1 },
      ...(cells ? { matrix: [{ axis: 'tier', values: cells === 1 ? ['dram', 'ssd'] : ['dram', 'ssd', 'nvme'] }] } : {}),
    });
  }
  const hooks: HookContract[] = [];
  for (let i = 0; i < 3000; i++) {
    const engine = pick(engines);
    hooks.push({
      kind: 'hook', id: `hook.h${i}`, title: `hook ${i}`, source: src, engine, target: `m.C.f${i}`, hookType: 'AROUND',
      protects: { text: 'bench', lifecycles: ['restore'] }, activation: { mode: 'always' }, replacement: { status: 'none', needed: 'bench' },
      removalGate: { upstream: [{ upstream: pick(upstreams).id, requires: 'released' }], gates: [pick(gates).id, pick(gates).id, pick(gates).id] },
      disposition: { state: 'kept', reason: 'bench' },
    });
  }
  const gaps = Array.from({ length: 2000 }, (_, i): Contract => ({
    kind: 'gap', id: `gap.p${i}`, title: `gap ${i}`, source: src, engine: pick(engines), category: 'interface-gap',
    assertion: { form: 'symbol', file: 'x.py', symbol: 'X', present: true }, consequence: { text: 'bench', rejections: [`rejection.r${i}`], keepsHooks: [] },
    upstreamFix: { status: 'none', needed: 'bench' }, reopening: { upstream: [{ upstream: pick(upstreams).id, requires: 'released' }], gates: [pick(gates).id, pick(gates).id] },
  }));
  const rejections = Array.from({ length: CONTRACTS - 3 - 1000 - 2000 - 3000 - 2000 }, (_, i): Contract => ({
    kind: 'rejection', id: `rejection.r${i}`, title: `rejection ${i}`, source: src, engine: pick(engines), when: { env: 'X', op: 'present' }, message: 'bench', instead: 'bench', justifiedBy: [`gap.p${i}`],
  }));
  contracts.push(...upstreams, ...gates, ...hooks, ...gaps, ...rejections);
  // Positions are not needed by the fold; an empty document answers every lookup with line 1.
  const entries: ContractEntry[] = contracts.map((c) => ({ contract: c, source: { file: `${c.kind}s/${c.id}.yaml`, path: '', text: '', doc: { contents: null }, lines: null } as never }));
  return new Registry(root, entries);
}

function syntheticDrafts(registry: Registry, n: number, start: number): EvidenceDraft[] {
  const pins = Object.fromEntries(registry.ofKind('engine').map((e) => [e.name, { version: e.version, commit: e.commit! }]));
  const hooks = registry.ofKind('hook');
  const gates = registry.ofKind('gate');
  const upstreams = registry.ofKind('upstream');
  const gaps = registry.ofKind('gap');
  const adapters = ['a', 'b', 'c'].map((a) => hex(a.charCodeAt(0)));
  const drafts: EvidenceDraft[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.UTC(2026, 9, 1) + (start + i) * 1000).toISOString();
    const actor = random() < 0.9 ? 'orbitkv-maintainers' : 'acme-qa';
    const engine = pick(Object.keys(pins));
    const profile = { engines: { [engine]: pins[engine]! }, adapter: pick(adapters) };
    const r = random();
    if (r < 0.55) {
      const gate = pick(gates);
      const same = random() < 0.95;
      drafts.push({ at, actor, type: 'gate.result', subject: gate.id, profile, data: { result: random() < 0.85 ? 'pass' : 'fail', hashes: { before: hex(7), after: hex(same ? 7 : 8) }, ...(gate.matrix ? { cell: { tier: pick(gate.matrix[0]!.values) } } : {}) } });
    } else if (r < 0.65) {
      drafts.push({ at, actor: 'orbitkv-maintainers', type: 'adapter.consumed-replacement', subject: random() < 0.6 ? pick(hooks).id : pick(gaps).id, profile, data: { condition: 0, adapterVersion: '1' } });
    } else if (r < 0.72) drafts.push({ at, actor, type: 'upstream.state', subject: pick(upstreams).id, data: { state: pick(['open', 'merged', 'closed'] as const) } });
    else if (r < 0.75) drafts.push({ at, actor, type: 'upstream.released', subject: pick(upstreams).id, data: { line: '1.0', version: '1.0.0' } });
    else if (r < 0.8) drafts.push({ at, actor: 'acme-qa', type: 'gate.acceptance', subject: pick(gates).id, profile, data: { verdict: 'accepted' } });
    else if (r < 0.9) drafts.push({ at, actor, type: 'verify.assertion', subject: pick(gaps).id, profile: { engines: profile.engines }, data: { result: 'holds', files: { 'x.py': hex(9) } } });
    else if (r < 0.99995) drafts.push({ at, actor, type: 'recheck', subject: pick([...hooks, ...upstreams]).id, data: { findings: 'bench', authorizes: 'nothing' } });
    else drafts.push({ at, actor, type: 'recheck', subject: `engine.${engine}`, data: { findings: 'engine recheck', authorizes: 'nothing' } });
  }
  return drafts;
}

function seal(drafts: readonly EvidenceDraft[], seq0: number, prev0: string): { text: string; hash: string } {
  let prev = prev0;
  const lines: string[] = [];
  drafts.forEach((d, i) => {
    const { line, hash } = sealLine({ ...d, seq: seq0 + i + 1, prev } as Record<string, unknown>);
    lines.push(line);
    prev = hash;
  });
  return { text: `${lines.join('\n')}\n`, hash: prev };
}

const time = <T>(f: () => T): [T, number] => {
  const t0 = performance.now();
  const v = f();
  return [v, (performance.now() - t0) / 1000];
};

const dir = mkdtempSync(join(tmpdir(), 'okv-ledger-bench-'));
try {
  const registry = syntheticRegistry(dir);
  // Once per process, before any fold: the lifecycle index of the registry and the fingerprint
  // snapshots are keyed by, both derived once per loaded registry (reported on their own).
  const [, worldTime] = time(() => {
    worldOf(registry);
    registryFingerprint(registry);
  });
  const files = ledgerFiles(dir);
  const { text, hash } = seal(syntheticDrafts(registry, RECORDS, 0), 0, GENESIS);
  mkdirSync(join(dir, 'evidence'), { recursive: true });
  writeFileSync(files.ledger, text);
  writeFileSync(files.head, `${JSON.stringify({ seq: RECORDS, hash })}\n`);
  const at = '2026-11-29T00:00:00Z';
  /** Same work as the chain check, written plainly: read the file, parse each line, re-serialize it, hash it, follow prev. */
  const peerVerify = () => {
    const t = readFileSync(files.ledger, 'utf8');
    let prev = GENESIS;
    let n = 0;
    for (const line of t.split('\n')) {
      if (!line) continue;
      const { hash: h, ...body } = JSON.parse(line) as { hash: string; prev: string };
      if (body.prev !== prev || sha256(canonicalJson(body)) !== h) throw new Error('peer: chain broken');
      prev = h;
      n++;
    }
    return n;
  };
  /** A bound on the warm path: hash the bytes it must prove, parse the new lines, nothing folded. */
  const peerWarm = (newLines: number) => {
    const bytes = readFileSync(files.ledger);
    createHash('sha256').update(bytes).digest('hex');
    const t = bytes.toString('utf8').split('\n');
    for (const line of t.slice(Math.max(0, t.length - 1 - newLines))) if (line) JSON.parse(line);
  };
  peerVerify(); // warm the JIT for the peer as much as ours gets from the world above

  // Cold, from the start, as `status` does without a cache: stream the ledger through the chain
  // check into the fold, then the board.
  const [coldBoard, cold] = time(() => {
    const loaded = loadFold(registry, files);
    if (loaded.diagnostics.length) throw new Error(loaded.diagnostics[0]!.message);
    return boardFromFold(registry, loaded.state, at);
  });
  const [, peerCold] = time(peerVerify);
  // The parts on their own: the read and chain check handing records to nothing, then the fold of records already read.
  const [, readTime] = time(() => scanLedgerFile(files, {}, () => undefined).count);
  const readOnly = readLedgerFile(files).records;
  const [, foldTime] = time(() => foldLedger(registry, readOnly));

  // Warm after an append by the tool: status once (it writes the snapshot: fold and board rows),
  // `evidence add`'s own append, then status again.
  const cacheDir = join(dir, '.cache');
  loadBoard(registry, files, { cacheDir, at });
  const [draft] = syntheticDrafts(registry, 1, RECORDS);
  const [appendResult, appendTime] = time(() => appendEvidence(files, draft!, ledgerAdmission(registry, files, { committed: snapshotOnCommit(cacheDir, registry, files), now: () => Date.parse(draft!.at) })));
  if (!appendResult.record) throw new Error(`the tool's append was refused: ${appendResult.diagnostics[0]?.message}`);
  const [{ board: afterAppend, loaded: loadedAfterAppend }, warmAppend] = time(() => loadBoard(registry, files, { cacheDir, at }));
  if (!loadedAfterAppend.fromCache || !loadedAfterAppend.rows || loadedAfterAppend.diagnostics.length) throw new Error('warm path after the append missed the snapshot');
  if (JSON.stringify(afterAppend.rows) !== JSON.stringify(boardFromFold(registry, loadFold(registry, files).state, at).rows)) throw new Error('warm rows after the append differ from a cold board');
  const [, peerWarmAppend] = time(() => peerWarm(1));

  // Warm after 100 records arrive from outside (a pull): the same proof, a longer tail.
  loadBoard(registry, files, { cacheDir, at });
  const appended = seal(syntheticDrafts(registry, APPENDED, RECORDS + 1), RECORDS + 1, appendResult.record.hash);
  appendFileSync(files.ledger, appended.text);
  writeFileSync(files.head, `${JSON.stringify({ seq: RECORDS + 1 + APPENDED, hash: appended.hash })}\n`);
  const [{ board: warmBoard, loaded }, warm] = time(() => loadBoard(registry, files, { cacheDir, at }));
  if (!loaded.fromCache || !loaded.rows || loaded.diagnostics.length) throw new Error('warm path missed the cache');
  // The same status with every row rebuilt from the fold: what the snapshot's rows save.
  const [loadedAgain, warmNoRows] = time(() => {
    const l = loadFold(registry, files, { cacheDir, deferStore: true });
    boardFromFold(registry, l.state, at);
    return l;
  });
  const fresh = boardFromFold(registry, loadedAgain.state, at);
  if (JSON.stringify(fresh.rows) !== JSON.stringify(warmBoard.rows)) throw new Error('rows from the snapshot differ from rows built afresh');
  const [, peerWarmPull] = time(() => peerWarm(APPENDED));
  if (warmBoard.ledger.seq !== RECORDS + 1 + APPENDED) throw new Error('warm fold did not reach the end');
  if (coldBoard.rows.length !== CONTRACTS) throw new Error('board rows');

  // Per event: table step vs xstate transition() on the same hook events.
  const hook = worldOf(registry).tracked.get('hook.h0')!;
  const table = compileTable(hookLifecycle);
  const gateId = (registry.get('hook.h0') as HookContract).removalGate.gates[0]!;
  const events: LifecycleEvent[] = Array.from({ length: 20_000 }, (_, i) => {
    const fields = { seq: i + 1, pass: i % 3 !== 0, adapter: hex(1), hashes: 'equal' as const, engines: [hook.engines[0]!], standIn: false, independent: false, actor: 'a' };
    return { type: 'gate.result', gate: gateId, cell: '-', key: `${gateId}|-`, onPins: true, result: fields, evidence: { engines: fields.engines, seq: fields.seq }, ...fields };
  });
  const [, tableTime] = time(() => {
    let s = tableStart(table, hook.initial as never);
    for (const e of events) s = tableStep(table, s, e);
    return s;
  });
  const [, xstateTime] = time(() => {
    let [s] = initialTransition(hookLifecycle.machine, hook.initial);
    for (const e of events) [s] = transition(hookLifecycle.machine, s, e);
    return s;
  });

  const verifyPeer = 'same work: parse, re-serialize, hash, follow prev (plain)';
  const warmBound = 'bound: sha256 of the whole file + JSON.parse of the new lines';
  const results: BenchResult[] = [
    { name: `cold: read+verify+fold+board, ${RECORDS} records / ${CONTRACTS} contracts (< 2 s)`, unit: 's', ours: cold, peer: peerCold, peerName: `bound: ${verifyPeer.slice('same work: '.length)}, no fold`, ratio: costRatio(cold, peerCold), target: '< 2 s' },
    { name: `  of which read+verify chain (records handed to nothing)`, unit: 's', ours: readTime, peer: peerCold, peerName: verifyPeer, ratio: costRatio(readTime, peerCold), target: '-' },
    { name: `  of which fold (of records already read)`, unit: 's', ours: foldTime, peer: peerCold, peerName: 'bound: the verify it runs alongside (plain)', ratio: costRatio(foldTime, peerCold), target: '-' },
    { name: `warm: status after an append by the tool (${draft!.type} ${draft!.subject}) (< 0.3 s)`, unit: 's', ours: warmAppend, peer: peerWarmAppend, peerName: warmBound, ratio: costRatio(warmAppend, peerWarmAppend), target: '< 0.3 s' },
    { name: `warm: status after ${APPENDED} records pulled in (< 0.3 s)`, unit: 's', ours: warm, peer: peerWarmPull, peerName: warmBound, ratio: costRatio(warm, peerWarmPull), target: '< 0.3 s' },
    { name: '  the same, every board row rebuilt (snapshot rows unused)', unit: 's', ours: warmNoRows, peer: peerWarmPull, peerName: warmBound, ratio: costRatio(warmNoRows, peerWarmPull), target: '-' },
    { name: 'the append itself: locked scan + admission folded from the start', unit: 's', ours: appendTime, peer: cold, peerName: 'same work: the cold status above', ratio: costRatio(appendTime, cold), target: '-' },
    { name: 'registry index and fingerprint, once per process (not in the rows above)', unit: 's', ours: worldTime, peer: peerCold, peerName: `bound: ${verifyPeer.slice('same work: '.length)}`, ratio: costRatio(worldTime, peerCold), target: '-' },
    { name: 'per event: table step vs xstate transition()', unit: 'µs', ours: (tableTime / events.length) * 1e6, peer: (xstateTime / events.length) * 1e6, peerName: 'same work: xstate transition()', ratio: costRatio(tableTime, xstateTime), target: '-' },
  ];
  // Opt-in (`LEDGER_BENCH_SIGNED=1`): the same records, every one signed (two ed25519 keys, one per
  // actor, listed in allowed_signers): a cold status and the scan alone, against the unsigned ledger.
  if (process.env['LEDGER_BENCH_SIGNED'] === '1') {
    const keyDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'keys');
    const keys: Record<string, SshSigningKey> = { 'orbitkv-maintainers': parseOpenSshPrivateKey(readFileSync(join(keyDir, 'maintainer'), 'utf8')), 'acme-qa': parseOpenSshPrivateKey(readFileSync(join(keyDir, 'qa'), 'utf8')) };
    const publicLine = (name: string) => readFileSync(join(keyDir, `${name}.pub`), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    const signedDir = mkdtempSync(join(tmpdir(), 'okv-ledger-signed-'));
    try {
      const signed = ledgerFiles(signedDir);
      mkdirSync(join(signedDir, 'evidence'), { recursive: true });
      let prev = GENESIS;
      const lines: string[] = [];
      for (const [i, line] of readFileSync(files.ledger, 'utf8').split('\n').filter(Boolean).slice(0, RECORDS).entries()) {
        const { hash: _hash, signature: _signature, ...record } = JSON.parse(line) as Record<string, unknown>;
        const body: Record<string, unknown> = { ...record, seq: i + 1, prev };
        const { line: sealed, hash: h } = sealLine({ ...body, signature: signMessage(keys[String(body['actor'])]!, signedMessage(body)) });
        lines.push(sealed);
        prev = h;
      }
      writeFileSync(signed.ledger, `${lines.join('\n')}\n`);
      writeFileSync(signed.head, `${JSON.stringify({ seq: RECORDS, hash: prev })}\n`);
      writeFileSync(signed.signers, `orbitkv-maintainers ${publicLine('maintainer')}\nacme-qa ${publicLine('qa')}\n`);
      const unsignedFiles = ledgerFiles(join(signedDir, 'unsigned'));
      mkdirSync(join(signedDir, 'unsigned', 'evidence'), { recursive: true });
      writeFileSync(unsignedFiles.ledger, readFileSync(files.ledger, 'utf8').split('\n').filter(Boolean).slice(0, RECORDS).map((l) => `${l}\n`).join(''));
      writeFileSync(unsignedFiles.head, `${JSON.stringify({ seq: RECORDS, hash: JSON.parse(readFileSync(unsignedFiles.ledger, 'utf8').split('\n').at(-2)!).hash })}\n`);
      const coldOf = (f: typeof files) => time(() => {
        const l = loadFold(registry, f);
        if (l.diagnostics.length) throw new Error(l.diagnostics[0]!.message);
        return boardFromFold(registry, l.state, at);
      })[1];
      const signedCold = coldOf(signed);
      const unsignedCold = coldOf(unsignedFiles);
      const [, signedScan] = time(() => scanLedgerFile(signed, {}, () => undefined).count);
      const [, unsignedScan] = time(() => scanLedgerFile(unsignedFiles, {}, () => undefined).count);
      results.push(
        { name: `cold, every record signed (ed25519 SSHSIG, ${RECORDS} records)`, unit: 's', ours: signedCold, peer: unsignedCold, peerName: 'same work on the unsigned ledger (no signatures)', ratio: costRatio(signedCold, unsignedCold), target: '-' },
        { name: '  of which read+verify chain and every signature', unit: 's', ours: signedScan, peer: unsignedScan, peerName: 'same scan of the unsigned ledger', ratio: costRatio(signedScan, unsignedScan), target: '-' },
      );
    } finally {
      rmSync(signedDir, { recursive: true, force: true });
    }
  }
  process.stdout.write('warm path verifies: the snapshot\'s HMAC seal (key private to the cache folder), its keys (machine definitions, lifecycle code, registry content, trusted signers, ledger path), the sha256 of every ledger byte before its position (re-hashed, not trusted by mtime or size), then every new line (hash, chain, seq, time order, signature) and the head anchor\n');
  printReport('ledger', results);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
