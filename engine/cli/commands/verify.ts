import type { Diagnostic } from '../../diagnostics/index.js';
import type { Registry } from '../../registry/index.js';
import type { SshSigningKey } from '../../lifecycle/index.js';
import type { AssertionCheck, TargetCheck, VerifyReport } from '../../verify/index.js';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv verify --engine NAME --source DIR [--registry DIR] [--record [--key FILE]] [--format text|json]

Parses an engine checkout (Python, tree-sitter) and checks the engine's hook targets, consumed
interface symbols and gap source assertions; reports the checkout's version against the pin.
  --engine NAME    the engine contract's name (vllm, sglang)
  --source DIR     root of the engine checkout (the package may sit under src/ or python/)
  --registry DIR   registry folder (default: ./contracts, else the registry shipped in the package)
  --record         append the results to the evidence ledger (sha256 of every file read)
  --actor NAME     who records (default: $ORBITKV_ACTOR, else $USER)
  --key FILE       with --record: sign every record with this OpenSSH ed25519 private key
                   (default: $ORBITKV_SIGNING_KEY); required once the registry lists
                   trusted signers in evidence/allowed_signers
  --format FORMAT  text (default: one line per checked symbol or assertion) or json
  --threads N      worker threads (default: one per CPU; 0 parses in the main thread)
  --no-cache       parse every file (default: reuse symbol tables by content hash from
                   $ORBITKV_CACHE_DIR, else ./.orbitkv-cache/verify; a reused table is the one a
                   fresh parse gives, so results never depend on the cache)
Results: present / missing / signature-changed / unresolvable-statically for targets,
holds / no-longer-holds / unresolvable for assertions; removed hooks are informational.
Exit status: 0 every check holds, 1 something is missing, changed, no longer holds or
cannot be decided statically, 2 usage (unknown engine, source not a directory, no package).
`;

const FORMATS = ['text', 'json'] as const;
type Format = (typeof FORMATS)[number];
/** Input diagnostics that mean the command line named the wrong thing. */
const USAGE_CODES = new Set(['OKV6003', 'OKV6004', 'OKV6005']);

export const command: CommandModule = {
  name: 'verify',
  summary: "check an engine checkout's hook targets, interface symbols and gap assertions (tree-sitter)",
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('verify', argv, {
      engine: { type: 'string' },
      source: { type: 'string' },
      registry: { type: 'string' },
      record: { type: 'boolean' },
      actor: { type: 'string' },
      key: { type: 'string' },
      format: { type: 'string' },
      threads: { type: 'string' },
      'no-cache': { type: 'boolean' },
    });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (values.engine === undefined) throw new UsageError('--engine NAME is required', 'orbitkv verify --engine vllm --source DIR');
    if (values.source === undefined) throw new UsageError('--source DIR is required', 'orbitkv verify --engine vllm --source DIR');
    const format = (values.format ?? 'text') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`unknown format '${values.format}'`, `use --format ${FORMATS.join('|')}`);
    if (values.threads !== undefined && !/^\d+$/.test(values.threads)) throw new UsageError(`--threads '${values.threads}' is not a whole number`);
    if (values.key !== undefined && !values.record) throw new UsageError('--key signs what --record appends', 'add --record, or drop --key');

    const { resolve } = await import('node:path');
    const { loadRegistry, resolveRegistryDir } = await import('../../registry/index.js');
    const { formatDiagnostics, errorCount } = await import('../../diagnostics/index.js');
    const { verifyEngine, GrammarMismatchError } = await import('../../verify/index.js');
    const { cacheDirFor } = await import('../../lifecycle/index.js');
    const dir = resolveRegistryDir(io.cwd, values.registry);
    const loaded = loadRegistry(dir);
    if (loaded.diagnostics.some((d) => d.code === 'OKV1001')) {
      io.err(formatDiagnostics(loaded.diagnostics, { format: 'text', root: dir, cwd: io.cwd }));
      return EXIT.usage;
    }
    let report: VerifyReport;
    try {
      report = await verifyEngine({ registry: loaded.registry, engine: values.engine, source: resolve(io.cwd, values.source), ...(values.threads !== undefined ? { threads: Number(values.threads) } : {}), ...(values['no-cache'] ? {} : { cacheDir: cacheDirFor(io.cwd, io.env) }) });
    } catch (error) {
      if (!(error instanceof GrammarMismatchError)) throw error;
      io.err(formatDiagnostics([error.diagnostic], { format: 'text', root: io.cwd, cwd: io.cwd }));
      return EXIT.failed;
    }
    const diagnostics = [...report.diagnostics];
    let recorded = 0;
    if (values.record && report.verdict !== 'unusable') {
      const lifecycle = await import('../../lifecycle/index.js');
      // The key is read before anything is appended: an unusable key appends nothing.
      const keyFile = values.key ?? io.env['ORBITKV_SIGNING_KEY'];
      const key = keyFile !== undefined && keyFile !== '' ? lifecycle.loadSigningKey(resolve(io.cwd, keyFile)) : undefined;
      if (key && 'code' in key) {
        io.err(formatDiagnostics([key], { format: 'text', root: dir, cwd: io.cwd }));
        return EXIT.failed;
      }
      const outcome = await record(report, loaded.registry, values.actor ?? io.env['ORBITKV_ACTOR'] ?? io.env['USER'] ?? 'orbitkv verify', lifecycle.cacheDirFor(io.cwd, io.env), key);
      recorded = outcome.recorded;
      diagnostics.push(...outcome.diagnostics);
    }
    if (format === 'json') io.out(`${JSON.stringify({ ...report, diagnostics, recorded }, null, 2)}\n`);
    else {
      io.out(renderText(report, recorded));
      if (diagnostics.length) io.out(formatDiagnostics(diagnostics, { format: 'text', root: report.source, cwd: io.cwd, color: io.isTty && io.env['NO_COLOR'] === undefined }));
    }
    if (report.verdict === 'unusable') return report.diagnostics.some((d) => USAGE_CODES.has(d.code)) ? EXIT.usage : EXIT.failed;
    if (values.record && errorCount(diagnostics) > 0) return EXIT.failed;
    return report.verdict === 'ok' ? EXIT.ok : EXIT.failed;
  },
};

/**
 * Appends the run's records through the ledger's public API, each admitted by the lifecycle
 * rules; stops at the first refusal (earlier records stay: each is a fact on its own).
 */
async function record(report: VerifyReport, registry: Registry, actor: string, cacheDir: string | undefined, key: SshSigningKey | undefined): Promise<{ recorded: number; diagnostics: Diagnostic[] }> {
  const { evidenceDrafts } = await import('../../verify/evidence.js');
  const { diagnose } = await import('../../diagnostics/index.js');
  const lifecycle = await import('../../lifecycle/index.js');
  const built = evidenceDrafts(report, { actor, at: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
  if ('refusal' in built) return { recorded: 0, diagnostics: [diagnose('recordUnavailable', {}, built.refusal)] };
  const files = lifecycle.ledgerFiles(registry.root);
  let recorded = 0;
  for (const draft of built.drafts) {
    const result = lifecycle.appendEvidence(files, draft, lifecycle.ledgerAdmission(registry, files, { committed: lifecycle.snapshotOnCommit(cacheDir, registry, files), ...(key ? { key } : {}) }));
    if (!result.record) return { recorded, diagnostics: [...result.diagnostics, diagnose('recordUnavailable', { contract: draft.subject }, `${recorded} of ${built.drafts.length} record(s) appended before the ledger refused one`)] };
    recorded++;
  }
  return { recorded, diagnostics: [] };
}

const WIDTH = 'unresolvable-statically'.length;

function where(t: { location?: { file: string; line: number; col: number } }): string {
  return t.location ? `${t.location.file}:${t.location.line}:${t.location.col}` : '';
}

function targetLine(t: TargetCheck): string {
  const tail = [where(t), t.inheritedFrom ? `inherited from ${t.inheritedFrom}` : '', t.outcome !== 'present' && t.detail ? t.detail : ''].filter(Boolean).join('  ');
  const lines = [`${t.outcome.padEnd(WIDTH)}  ${t.contract}  ${t.target}${t.informational ? '  (removed hook: informational)' : ''}${tail ? `  ${tail}` : ''}`];
  if (t.diff) {
    lines.push(`${' '.repeat(WIDTH)}    expected ${t.diff.expected}`, `${' '.repeat(WIDTH)}    found    ${t.diff.found}`);
    for (const d of t.diff.differences) lines.push(`${' '.repeat(WIDTH)}    - ${d}`);
  }
  return lines.join('\n');
}

function assertionLines(a: AssertionCheck, depth = 0): string[] {
  const indent = '  '.repeat(depth);
  const head = `${indent}${a.outcome.padEnd(WIDTH - indent.length)}  ${depth === 0 ? `${a.contract}  ` : ''}${a.summary}${a.detail ? `  (${a.detail})` : ''}`;
  return [head, ...(a.parts ?? []).flatMap((p) => assertionLines(p, depth + 1))];
}

/** One line per checked symbol or assertion, then the version and a count. */
export function renderText(report: VerifyReport, recorded = 0): string {
  const out: string[] = [];
  if (report.verdict === 'unusable') return `verify ${report.engine}: nothing verified\n`;
  const cached = report.scanCache ? `, ${report.scanCache.parsed} parsed, ${report.scanCache.reused} from cache` : '';
  out.push(`verify ${report.engine}: ${report.source} (package ${report.packageDir}, ${report.scanned} Python files${cached}, grammar ${report.grammar.name} ${report.grammar.version})`);
  const v = report.version;
  if (v) {
    const version = v.version === undefined ? 'version unknown' : `version ${v.version} (${v.versionFrom})${v.versionMatches ? ' = pin' : ` ≠ pin ${v.pinnedVersion}`}`;
    const commit = v.commit === undefined ? (v.pinnedCommit ? `commit unknown (pin ${v.pinnedCommit.slice(0, 12)})` : '') : `commit ${v.commit.slice(0, 12)} (${v.commitFrom})${v.commitMatches === undefined ? '' : v.commitMatches ? ' = pin' : ` ≠ pin ${v.pinnedCommit?.slice(0, 12)}`}`;
    out.push(`${'version'.padEnd(WIDTH)}  ${[version, commit].filter(Boolean).join('; ')}`);
  }
  for (const t of report.targets) out.push(targetLine(t));
  for (const a of report.assertions) out.push(...assertionLines(a));
  const counts = Object.entries(report.counts).map(([k, n]) => `${n} ${k}`).join(', ');
  const informational = report.targets.filter((t) => t.informational).length;
  out.push(`${report.verdict === 'ok' ? 'ok' : 'FAILED'}: ${report.targets.length} target(s), ${report.assertions.length} assertion(s): ${counts || 'nothing to check'}${informational ? ` (${informational} removed-hook target(s) informational)` : ''}${recorded ? `; ${recorded} evidence record(s) appended` : ''}`);
  return `${out.join('\n')}\n`;
}
