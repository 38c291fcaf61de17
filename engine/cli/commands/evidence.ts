import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv evidence add TYPE --subject ID [--actor NAME] [--at TIMESTAMP] [--data JSON]
                        [--profile JSON | --engines NAME,... [--adapter SHA256]] [--registry DIR]
       orbitkv evidence verify [--repair] [--registry DIR]

add     validates one record against the registry (type, subject kind, data fields, gate cells,
        condition index), the current pins (its profile) and the contract's lifecycle (a removal
        before its gates passed is refused), then appends it to <registry>/evidence/ledger.jsonl
        under a lock. Nothing is appended when anything is wrong.
          --subject ID      the contract the evidence is about
          --actor NAME      who records it (default: $ORBITKV_ACTOR, else $USER)
          --at TIMESTAMP    when (UTC, YYYY-MM-DDTHH:MM:SSZ; default: now); never before the last record
          --data JSON       the type's data, e.g. '{"result":"pass","cell":{"tier":"dram"},"hashes":{...}}'
          --profile JSON    the profile: {"engines":{"sglang":{"version":"0.5.21","commit":"..."}},"adapter":"<sha256>"}
          --engines LIST    shorthand: bind the profile to these engines at their current pins
          --adapter SHA256  the adapter package hash, with --engines
verify  checks the whole ledger: hashes, chain, sequence, time order, canonical form and the head
        anchor; names the first bad line. --repair drops a torn last line (an interrupted append) only.
types: upstream.state, upstream.released, pin.changed, recheck, adapter.consumed-replacement,
       verify.target, verify.assertion, gate.result, gate.acceptance, hook.removed,
       optimization.dropped, hook.reinstated, support.expanded
Exit status: 0 done, 1 refused or a bad ledger, 2 usage.
`;

export const command: CommandModule = {
  name: 'evidence',
  summary: 'append evidence to the ledger (validated against the registry) or verify the ledger chain',
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseCommandLine('evidence', argv, {
      subject: { type: 'string' }, actor: { type: 'string' }, at: { type: 'string' }, data: { type: 'string' }, profile: { type: 'string' },
      engines: { type: 'string' }, adapter: { type: 'string' }, registry: { type: 'string' }, repair: { type: 'boolean' },
    }, true);
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const [action, type, ...extra] = positionals;
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`, 'orbitkv evidence --help');
    const lifecycle = await import('../../lifecycle/index.js');
    const { formatDiagnostics } = await import('../../diagnostics/index.js');
    const session = lifecycle.openSession(io.cwd, values.registry);
    const show = (d: Parameters<typeof formatDiagnostics>[0]) => io.err(formatDiagnostics(d, { format: 'text', root: session.registry.root, cwd: io.cwd }));
    if (action === 'verify') {
      if (type !== undefined) throw new UsageError(`unexpected argument '${type}'`, 'orbitkv evidence verify [--repair]');
      const read = lifecycle.readLedgerFile(session.files, { canonical: true });
      if (values.repair && read.torn && read.diagnostics.length === 1) {
        const repaired = lifecycle.repairTornLine(session.files);
        if (repaired.diagnostics.length) {
          show(repaired.diagnostics);
          return EXIT.failed;
        }
        io.out(`evidence: dropped torn line ${repaired.dropped}; ${read.records.length} records remain, chain intact\n`);
        return EXIT.ok;
      }
      if (read.diagnostics.length) {
        show(read.diagnostics);
        return EXIT.failed;
      }
      io.out(`evidence: ${read.records.length} records, chain intact, head seq ${read.end.seq} ${read.end.hash}\n`);
      return EXIT.ok;
    }
    if (action !== 'add') throw new UsageError(action === undefined ? 'missing action' : `unknown action '${action}'`, 'use `orbitkv evidence add TYPE ...` or `orbitkv evidence verify`');
    if (type === undefined) throw new UsageError('missing evidence TYPE', 'orbitkv evidence add TYPE --subject ID');
    if (values.subject === undefined) throw new UsageError('missing --subject ID', 'name the contract the evidence is about');
    const actor = values.actor ?? io.env['ORBITKV_ACTOR'] ?? io.env['USER'];
    if (!actor) throw new UsageError('missing --actor NAME', 'pass --actor or set ORBITKV_ACTOR');
    const data = parseJson(values.data ?? '{}', '--data');
    if (values.profile !== undefined && values.engines !== undefined) throw new UsageError('pass --profile or --engines, not both');
    if (values.adapter !== undefined && values.engines === undefined) throw new UsageError('--adapter goes with --engines', 'or put "adapter" in --profile JSON');
    let profile = values.profile !== undefined ? parseJson(values.profile, '--profile') : undefined;
    if (values.engines !== undefined) {
      const fold = lifecycle.loadFold(session.registry, session.files, { cacheDir: lifecycle.cacheDirFor(io.cwd, io.env) }).state;
      const engines: Record<string, { version: string; commit?: string }> = {};
      for (const name of values.engines.split(',').map((s) => s.trim()).filter(Boolean)) {
        const pin = fold.pins[name];
        if (!pin) throw new UsageError(`no engine '${name}' is pinned`, `pinned engines: ${Object.keys(fold.pins).join(', ')}`);
        engines[name] = { version: pin.version, ...(pin.commit ? { commit: pin.commit } : {}) };
      }
      profile = { engines, ...(values.adapter !== undefined ? { adapter: values.adapter } : {}) };
    }
    const draft = { ...(values.at !== undefined ? { at: values.at } : {}), actor, type, subject: values.subject, data, ...(profile !== undefined ? { profile } : {}) };
    const result = lifecycle.appendEvidence(session.files, draft as never, lifecycle.ledgerAdmission(session.registry, session.files, lifecycle.cacheDirFor(io.cwd, io.env)));
    if (!result.record) {
      show(result.diagnostics);
      io.err('evidence: nothing appended\n');
      return EXIT.failed;
    }
    io.out(`evidence: appended seq ${result.record.seq} ${result.record.type} ${result.record.subject} (${result.record.hash.slice(0, 12)})\n`);
    return EXIT.ok;
  },
};

function parseJson(text: string, option: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${option} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${option} must be a JSON object`);
  return value as Record<string, unknown>;
}
