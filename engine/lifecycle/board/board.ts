import type { Contract, ContractKind, EvidenceRecord } from '../../model/index.js';
import { CONTRACT_KINDS } from '../../model/index.js';
import type { Registry } from '../../registry/index.js';
import { type Diagnostic, diagnose } from '../../diagnostics/index.js';
import { type FoldState, foldLedger } from '../fold/index.js';
import { blockerLines, contractMatrix } from '../matrix/index.js';
import { type GateContext, type RequirementContext, type UpstreamContext, compareVersions, gateStanding } from '../machines/index.js';

export interface Staleness {
  /** The last recheck that covers the contract; undefined: never rechecked. */
  last?: string;
  days?: number;
  maxAgeDays: number;
}

/** One contract on the board. */
export interface BoardRow {
  id: string;
  kind: ContractKind;
  title: string;
  state: string;
  /** When it entered that state (undefined: since the ledger's start). */
  since?: string;
  /** What keeps it where it is. */
  blockers: string[];
  next: string;
  /** The contract's own reason, where it states one (a kept hook's). */
  reason?: string;
  /** Set when the last recheck covering it is older than the recheck policy allows. */
  stale?: Staleness;
  /**
   * The latest source-verification finding that calls for attention (a hook target missing or
   * changed, a gap assertion that no longer holds). It records; it authorizes nothing.
   */
  finding?: string;
}

export interface Board {
  /** The instant the board is evaluated at (ISO). */
  at: string;
  ledger: { seq: number; hash: string };
  pins: Record<string, { version: string; commit?: string; line: string; newestSeen?: string }>;
  rows: BoardRow[];
  /** Warnings about the fold: refused records, pins or dispositions that differ from the contracts. */
  diagnostics: Diagnostic[];
}

export interface BoardOptions {
  /** Evaluate at this instant (ISO); evidence after it is left out. Default: now. */
  at?: string;
  /** Staleness needs a clock; the committed report leaves it out to stay deterministic. */
  staleness?: boolean;
}

/**
 * The board: every contract with its state, since when, what blocks it and the next action.
 * Pure: the registry and the ledger in, data out (`orbitkv check` and `status` render it).
 *
 * @example buildBoard(registry, records, { at: '2026-11-29T00:00:00Z' }).rows.filter((r) => r.kind === 'hook')
 */
export function buildBoard(registry: Registry, ledger: readonly EvidenceRecord[] | FoldState, options: BoardOptions = {}): Board {
  const at = options.at ?? new Date().toISOString();
  const fold = Array.isArray(ledger) ? foldLedger(registry, ledger, { until: at }) : (ledger as FoldState);
  return boardFromFold(registry, fold, at, options.staleness ?? true);
}

/**
 * What a contract's board row is, apart from the clock: everything but its staleness. It
 * depends on the contract, its fold and the folds it reads (its upstream conditions), so it is
 * memoised per contract and kept in the snapshot cache; a fold that moves drops the memo of the
 * contracts that read it (`LoadedFold.rows`).
 */
export interface RowCore {
  row: BoardRow;
  /** The last recheck covering it; absent: it is never stale (a gate, or a contract that left). */
  recheck?: string | null;
  /** The source-verification finding's next step, put before the recheck on the board. */
  findingNext?: string;
}

/** Row cores by contract id, computed once per fold (see `RowCore`). */
export type RowMemo = Map<string, RowCore>;

export function boardFromFold(registry: Registry, fold: FoldState, at: string, staleness = true, memo?: RowMemo): Board {
  const policy = registry.ofKind('policy').find((p) => p.policy.rule === 'recheck');
  const maxAgeDays = policy && policy.policy.rule === 'recheck' ? policy.policy.maxAgeDays : undefined;
  const rows: BoardRow[] = [];
  const day = Date.parse(at.slice(0, 10));
  const staleOf = (last: string | undefined): Staleness | undefined => {
    if (!staleness || maxAgeDays === undefined) return undefined;
    if (last === undefined) return { maxAgeDays };
    // Calendar days, as the recheck policy counts them.
    const days = Math.round((day - Date.parse(last.slice(0, 10))) / 86_400_000);
    return days > maxAgeDays ? { last, days, maxAgeDays } : undefined;
  };
  for (const contract of rowOrder(registry)) {
    const folded = fold.contracts[contract.id];
    const base = { id: contract.id, kind: contract.kind, title: contract.title };
    switch (contract.kind) {
      case 'engine': {
        const pin = fold.pins[contract.name];
        const version = pin?.version ?? contract.version;
        const newest = contract.newestSeen?.version;
        const behind = newest !== undefined && compareVersions(newest, version) > 0;
        const stale = contract.role === 'runtime' || fold.engineRechecks[contract.name] ? staleOf(fold.engineRechecks[contract.name]) : undefined;
        rows.push({ ...base, state: `pinned ${version}`, ...(pin?.at !== undefined ? { since: pin.at } : {}), blockers: behind ? [`newest seen ${newest} (${contract.newestSeen!.seenOn})`] : [], next: stale || behind ? 'recheck the newest releases against the pin' : 'none', ...(stale ? { stale } : {}) });
        break;
      }
      case 'interface': {
        const open = contract.qualifiedBy.filter((g) => {
          const ctx = fold.contracts[g]?.context as GateContext | undefined;
          return !ctx || gateStanding(ctx) !== 'passed';
        });
        const stale = staleOf(fold.engineRechecks[contract.engine]);
        rows.push({ ...base, state: contract.status, blockers: open.map((g) => `${g}: ${fold.contracts[g]?.value ?? 'not in the registry'}`), next: open.length ? `qualify: ${open[0]}${open.length > 1 ? ` (+${open.length - 1})` : ''}` : 'none', ...(stale ? { stale } : {}) });
        break;
      }
      case 'policy':
        rows.push({ ...base, state: 'in force', blockers: [], next: 'none' });
        break;
      default: {
        if (!folded) break;
        let core = memo?.get(contract.id);
        if (!core) {
          core = rowCore(registry, fold, contract, folded.value, folded.since, folded.context);
          memo?.set(contract.id, core);
        }
        const stale = core.recheck !== undefined ? staleOf(core.recheck ?? undefined) : undefined;
        if (!stale && !core.findingNext) {
          rows.push(core.row);
          break;
        }
        // A copy: the memoised row stays free of the clock.
        let next = core.row.next;
        if (stale) next = `recheck (${stale.last ? `last ${stale.last.slice(0, 10)}, ${stale.days} days` : 'never rechecked'}); then ${next}`;
        if (core.findingNext) next = `${core.findingNext}; ${next}`;
        const row: BoardRow = { ...core.row, next };
        if (stale) row.stale = stale;
        rows.push(row);
      }
    }
  }
  const pins: Board['pins'] = {};
  for (const e of registry.ofKind('engine')) {
    const pin = fold.pins[e.name];
    pins[e.name] = { version: pin?.version ?? e.version, line: pin?.line ?? e.line, ...((pin?.commit ?? e.commit) ? { commit: pin?.commit ?? e.commit! } : {}), ...(e.newestSeen ? { newestSeen: e.newestSeen.version } : {}) };
  }
  return { at, ledger: { seq: fold.position.seq, hash: fold.position.hash }, pins, rows, diagnostics: foldDiagnostics(registry, fold) };
}

const rowOrders = new WeakMap<Registry, readonly Contract[]>();

/**
 * The board's row order: kind order, then id. Sorted once per registry, as its lifecycle index is
 * built once (`worldOf`): a registry is not changed once loaded.
 */
function rowOrder(registry: Registry): readonly Contract[] {
  let known = rowOrders.get(registry);
  if (!known) {
    // The kind's rank is looked up once per contract, not twice per comparison.
    const order = new Map(CONTRACT_KINDS.map((k, i) => [k, i]));
    const ranked = registry.contracts.map((contract) => ({ contract, rank: order.get(contract.kind)! }));
    ranked.sort((a, b) => a.rank - b.rank || (a.contract.id < b.contract.id ? -1 : a.contract.id > b.contract.id ? 1 : 0));
    known = ranked.map((r) => r.contract);
    rowOrders.set(registry, known);
  }
  return known;
}

/** The clock-free part of a tracked contract's row (hooks, gaps, rejections, gates, upstream changes). */
function rowCore(registry: Registry, fold: FoldState, contract: Contract, value: string, since: string | null, context: object): RowCore {
  // The matrix is read only for the states whose blockers are its lines.
  const blockers = blockerForState(registry, fold, contract.id, value, () => blockerLines(contractMatrix(registry, fold, contract.id, { profiles: false })!));
  // Gates are qualified by runs, not rechecks; a contract that left (removed, released, closed) has nothing left to recheck.
  const settled = ['removed', 'reopened', 'released', 'closed'].includes(value);
  const recheck = contract.kind === 'gate' || settled ? undefined : ((context as { lastRecheck?: string | null }).lastRecheck ?? null);
  const reason = contract.kind === 'hook' && contract.disposition.state === 'kept' ? contract.disposition.reason : undefined;
  const state = contract.kind === 'rejection' && value === 'restricted' ? 'rejected' : value;
  const finding = verifyFinding(contract.kind, value, (context as Partial<RequirementContext>).verify);
  const next = nextAction(contract.kind, value, blockers);
  // Optional fields are assigned, not spread from temporaries (thousands of rows): same keys, same order.
  const row: BoardRow = since ? { id: contract.id, kind: contract.kind, title: contract.title, state, since, blockers, next } : { id: contract.id, kind: contract.kind, title: contract.title, state, blockers, next };
  if (reason) row.reason = reason;
  if (finding) row.finding = finding.text;
  const core: RowCore = { row };
  if (recheck !== undefined) core.recheck = recheck;
  if (finding) core.findingNext = finding.next;
  return core;
}

/** Verify results that are not business as usual, for the board: what they say and what to do. */
const TARGET_DRIFT = new Set(['missing', 'signature-changed', 'unresolvable-statically']);

function verifyFinding(kind: ContractKind, state: string, verify: RequirementContext['verify'] | undefined): { text: string; next: string } | undefined {
  if (!verify) return undefined;
  const when = verify.at.slice(0, 10);
  if (kind === 'hook' && state !== 'removed' && TARGET_DRIFT.has(verify.result)) {
    return { text: `source verification ${when}: hook target ${verify.result} (the guarded installer refuses it)`, next: "update the hook contract's target or signature to the checkout, or keep the previous pin" };
  }
  if (kind === 'gap' && (state === 'restricted' || state === 'replacement-consumed') && verify.result === 'no-longer-holds') {
    return { text: `source verification ${when}: the gap's assertion no longer holds (reopening candidate)`, next: 'confirm the upstream fix: record its release on the pinned line and its consumption, then run the reopening gates' };
  }
  if (kind === 'gap' && verify.result === 'unresolvable') {
    return { text: `source verification ${when}: the gap's assertion could not be decided statically`, next: "refine the gap's assertion to the checkout's layout" };
  }
  return undefined;
}

function blockerForState(registry: Registry, fold: FoldState, id: string, state: string, lines: () => string[]): string[] {
  if (state === 'removed' || state === 'reopened' || state === 'passed' || state === 'released' || state === 'closed') return [];
  if (state === 'awaiting-acceptance') return ['independent acceptance missing: only the author\'s evidence is recorded'];
  const contract = registry.get(id);
  if (contract?.kind === 'upstream') {
    if (state === 'unverified') return ['no recorded state: the ledger has no recheck of it'];
    if (state === 'open') return ['open and unmerged'];
    if (state === 'merged') return ['merged, not released on any line'];
    return [];
  }
  if (contract && (contract.kind === 'gap' || contract.kind === 'rejection' || contract.kind === 'hook')) {
    const ctx = fold.contracts[id]?.context as RequirementContext | undefined;
    if (ctx && ctx.spec.conditions.length + ctx.spec.cells.length === 0) return [contract.kind === 'rejection' ? 'no gap declares how this profile reopens' : 'no removal gate declared'];
  }
  return lines();
}

function nextAction(kind: ContractKind, state: string, blockers: string[]): string {
  switch (state) {
    case 'kept':
    case 'restricted':
      if (blockers.some((b) => b.includes('after the pin'))) return 'move the pin to the release that contains the replacement (record pin.changed), then re-run the gates';
      if (blockers.some((b) => b.includes('not released'))) return 'wait for the upstream replacement to be released on the pinned line; recheck';
      if (blockers.some((b) => b.includes('not consumed'))) return 'consume the released replacement in the adapter; record adapter.consumed-replacement';
      if (blockers.some((b) => b.startsWith('no '))) return `declare a ${kind === 'hook' ? 'removal' : 'reopening'} gate in the registry`;
      return 'run the gates; record gate.result with hashes';
    case 'replacement-consumed':
      return `run the ${kind === 'hook' ? 'removal' : 'reopening'} gates on the consuming profile; record gate.result with hashes`;
    case 'removable':
      return 'remove the hook from the adapter; record hook.removed';
    case 'reopenable':
      return 'lift the restriction in the adapter; record support.expanded';
    case 'regressed':
      return kind === 'hook' ? 'fix the failing cells or reinstate the hook (hook.reinstated)' : 'fix the failing cells';
    case 'pending':
      if (blockers.some((b) => b.includes('hashes'))) return 'record gate.result with its before/after hashes in the ledger (re-run the cells where they were not taken)';
      return 'run the gate on the current pins; record gate.result';
    case 'failed':
      return 'fix and re-run the failing cells';
    case 'awaiting-acceptance':
      return 'an independent actor records gate.acceptance (or its own gate.result)';
    case 'unverified':
    case 'open':
    case 'merged':
      return 'recheck the upstream; record upstream.state / upstream.released';
    default:
      return 'none';
  }
}

function foldDiagnostics(registry: Registry, fold: FoldState): Diagnostic[] {
  const out: Diagnostic[] = [];
  const site = (id: string) => {
    const where = registry.locate(id);
    return { contract: id, ...(where ? { file: where.file, range: where.range } : {}) };
  };
  for (const r of fold.refusals) out.push(diagnose('foldRefused', site(r.subject), r.seq, r.type, r.state));
  for (const e of registry.ofKind('engine')) {
    const pin = fold.pins[e.name];
    if (pin?.seq !== undefined && (pin.version !== e.version || (pin.commit !== undefined && e.commit !== undefined && pin.commit !== e.commit))) out.push(diagnose('pinDrift', site(e.id), e.name, pin.version, e.version));
  }
  out.push(...contractLedgerDrift(registry, fold));
  for (const h of registry.ofKind('hook')) {
    const folded = fold.contracts[h.id]?.value;
    if (folded === undefined) continue;
    const foldedRemoved = folded === 'removed';
    if ((h.disposition.state === 'removed') !== foldedRemoved) out.push(diagnose('dispositionDrift', site(h.id), h.disposition.state, folded));
  }
  return out;
}

/**
 * Where a contract's YAML states what only evidence can establish (an upstream change's state,
 * its releases and when it was checked; an engine's last recheck; a replacement released without
 * a tracked upstream), the board follows the ledger and names each disagreement: the YAML is a
 * claim that is checked, never a second source the fold is seeded from.
 */
function contractLedgerDrift(registry: Registry, fold: FoldState): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (id: string, path: (string | number)[]) => {
    const where = registry.locate(id, path);
    return { contract: id, ...(where ? { file: where.file, range: where.range } : {}) };
  };
  const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : undefined);
  for (const u of registry.ofKind('upstream')) {
    const ctx = fold.contracts[u.id]?.context as UpstreamContext | undefined;
    if (!ctx) continue;
    if (ctx.pr !== u.state) out.push(diagnose('contractLedgerDrift', at(u.id, ['state']), 'state', u.state, ctx.pr ?? 'no state', `record it: orbitkv evidence add upstream.state --subject ${u.id} --data '{"state":"${u.state}"}'`));
    u.releasedIn.forEach((r, i) => {
      if (!ctx.releasedIn.some((x) => x.line === r.line && x.version === r.version)) out.push(diagnose('contractLedgerDrift', at(u.id, ['releasedIn', i]), 'released in', `${r.version} on ${r.line}`, 'no such release', `record it: orbitkv evidence add upstream.released --subject ${u.id} --data '{"line":"${r.line}","version":"${r.version}"}'`));
    });
    for (const r of ctx.releasedIn) {
      if (!u.releasedIn.some((x) => x.line === r.line && x.version === r.version)) out.push(diagnose('contractLedgerDrift', at(u.id, ['releasedIn']), 'releasedIn', u.releasedIn.map((x) => x.version).join(', ') || 'none', `a release ${r.version} on ${r.line}`, 'add the release to releasedIn'));
    }
    const checked = day(ctx.lastRecheck);
    if (checked !== u.checked) out.push(diagnose('contractLedgerDrift', at(u.id, ['checked']), 'checked', u.checked, checked ? `the last recheck on ${checked}` : 'no recheck', checked && checked > u.checked ? `set checked: ${checked}` : `record the recheck: orbitkv evidence add recheck --subject ${u.id} --at ${u.checked}T00:00:00Z`));
  }
  for (const e of registry.ofKind('engine')) {
    const recorded = day(fold.engineRechecks[e.name]);
    if (recorded !== e.lastRecheck) out.push(diagnose('contractLedgerDrift', at(e.id, ['lastRecheck']), 'lastRecheck', e.lastRecheck, recorded ? `the last recheck on ${recorded}` : 'no recheck', recorded && recorded > e.lastRecheck ? `set lastRecheck: ${recorded}` : `record the recheck: orbitkv evidence add recheck --subject ${e.id} --at ${e.lastRecheck}T00:00:00Z`));
  }
  for (const c of [...registry.ofKind('hook'), ...registry.ofKind('gap')]) {
    const status = c.kind === 'hook' ? c.replacement : c.upstreamFix;
    if (status.status !== 'released' || status.upstream !== undefined) continue;
    const ctx = fold.contracts[c.id]?.context as RequirementContext | undefined;
    if (!ctx) continue;
    const recorded = ctx.spec.conditions.filter((k) => !k.upstream).map((k) => ctx.consumed[k.slot]?.release).filter((r) => r !== undefined);
    if (!recorded.some((r) => r.line === status.line && r.version === status.version)) {
      const field = c.kind === 'hook' ? 'replacement' : 'upstreamFix';
      out.push(diagnose('contractLedgerDrift', at(c.id, [field, 'version']), `${field} released in`, `${status.version} on ${status.line}`, recorded.length ? `a consumed release ${recorded.map((r) => r.version).join(', ')}` : 'no consumed release on the current pins', `record its consumption with the release: orbitkv evidence add adapter.consumed-replacement --subject ${c.id} --data '{"condition":0,"release":{"line":"${status.line}","version":"${status.version}"},...}'`));
    }
  }
  return out;
}
