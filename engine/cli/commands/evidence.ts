import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { parseEvidenceJson } from '../../lifecycle/ledger/data.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv evidence add TYPE --subject ID [--actor NAME] [--at TIMESTAMP] [--data JSON]
                        [--profile JSON | --engines NAME,... [--adapter SHA256]] [--key FILE] [--registry DIR]
       orbitkv evidence verify [--repair] [--registry DIR]

add     validates one record against the registry (type, subject kind, data fields, gate cells,
        condition index), the current pins (its profile) and the contract's lifecycle (a removal
        before its gates passed is refused), then appends it to <registry>/evidence/ledger.jsonl
        under a lock. Nothing is appended when anything is wrong.
          --subject ID      the contract the evidence is about
          --actor NAME      who records it (default: $ORBITKV_ACTOR, else $USER)
          --at TIMESTAMP    when (UTC, YYYY-MM-DDTHH:MM:SSZ; default: now); never before the last record,
                            never after now (plus 5 minutes of clock skew)
          --data JSON       the type's data, e.g. '{"result":"pass","cell":{"tier":"dram"},"hashes":{...}}'
          --profile JSON    the profile: {"engines":{"sglang":{"version":"0.5.21","commit":"..."}},"adapter":"<sha256>"}
          --engines LIST    shorthand: bind the profile to these engines at their current pins
          --adapter SHA256  the adapter package hash, with --engines
          --key FILE        sign the record with this OpenSSH ed25519 private key (unencrypted,
                            e.g. ~/.ssh/id_ed25519); the key must be listed for the actor in
                            <registry>/evidence/allowed_signers (default: $ORBITKV_SIGNING_KEY)
verify  checks the whole ledger: hashes, chain, sequence, time order, canonical form, the head
        anchor, and every signature against <registry>/evidence/allowed_signers; names the first
        bad line. --repair mends an interrupted append only: a last record that lacks just its
        newline is completed, a torn one dropped.
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
      engines: { type: 'string' }, adapter: { type: 'string' }, registry: { type: 'string' }, repair: { type: 'boolean' }, key: { type: 'string' },
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
        const after = lifecycle.readLedgerFile(session.files, { canonical: true });
        if (after.diagnostics.length) {
          show(after.diagnostics);
          return EXIT.failed;
        }
        io.out(repaired.completed !== undefined
          ? `evidence: completed line ${repaired.completed} (a whole record missing its newline); ${after.records.length} records, chain intact\n`
          : `evidence: dropped torn line ${repaired.dropped}; ${after.records.length} records remain, chain intact\n`);
        return EXIT.ok;
      }
      if (read.diagnostics.length) {
        show(read.diagnostics);
        return EXIT.failed;
      }
      const signed = read.records.filter((r) => r.signature !== undefined).length;
      const trust = lifecycle.loadTrust(session.files.signers);
      const trusted = trust.present
        ? `${signed} signed by trusted keys, ${read.records.length - signed} unsigned (history through record ${trust.history?.seq ?? 0})`
        : `${read.records.length - signed} unsigned: no trusted signers (evidence/allowed_signers), so a re-hashed copy would pass`;
      io.out(`evidence: ${read.records.length} records, chain intact, head seq ${read.end.seq} ${read.end.hash}; ${trusted}\n`);
      return EXIT.ok;
    }
    if (action !== 'add') throw new UsageError(action === undefined ? 'missing action' : `unknown action '${action}'`, 'use `orbitkv evidence add TYPE ...` or `orbitkv evidence verify`');
    if (type === undefined) throw new UsageError('missing evidence TYPE', 'orbitkv evidence add TYPE --subject ID');
    if (values.subject === undefined) throw new UsageError('missing --subject ID', 'name the contract the evidence is about');
    const actor = values.actor ?? io.env['ORBITKV_ACTOR'] ?? io.env['USER'];
    if (!actor) throw new UsageError('missing --actor NAME', 'pass --actor or set ORBITKV_ACTOR');
    const data = parseJson(values.data ?? '{}', '--data');
    if ('refused' in data) {
      show([data.refused]);
      io.err('evidence: nothing appended\n');
      return EXIT.failed;
    }
    if (values.profile !== undefined && values.engines !== undefined) throw new UsageError('pass --profile or --engines, not both');
    if (values.adapter !== undefined && values.engines === undefined) throw new UsageError('--adapter goes with --engines', 'or put "adapter" in --profile JSON');
    const given = values.profile !== undefined ? parseJson(values.profile, '--profile') : undefined;
    if (given && 'refused' in given) {
      show([given.refused]);
      io.err('evidence: nothing appended\n');
      return EXIT.failed;
    }
    let profile: Record<string, unknown> | undefined = given?.value;
    if (values.engines !== undefined) {
      const cacheDir = lifecycle.cacheDirFor(io.cwd, io.env);
      const fold = lifecycle.loadFold(session.registry, session.files, cacheDir !== undefined ? { cacheDir } : {}).state;
      const engines: Record<string, { version: string; commit?: string }> = {};
      for (const name of values.engines.split(',').map((s) => s.trim()).filter(Boolean)) {
        const pin = fold.pins[name];
        if (!pin) throw new UsageError(`no engine '${name}' is pinned`, `pinned engines: ${Object.keys(fold.pins).join(', ')}`);
        engines[name] = { version: pin.version, ...(pin.commit ? { commit: pin.commit } : {}) };
      }
      profile = { engines, ...(values.adapter !== undefined ? { adapter: values.adapter } : {}) };
    }
    const draft = { ...(values.at !== undefined ? { at: values.at } : {}), actor, type, subject: values.subject, data: data.value, ...(profile !== undefined ? { profile } : {}) };
    const keyFile = values.key ?? io.env['ORBITKV_SIGNING_KEY'];
    const key = keyFile !== undefined && keyFile !== '' ? lifecycle.loadSigningKey(resolve(io.cwd, keyFile)) : undefined;
    if (key && 'code' in key) {
      show([key]);
      io.err('evidence: nothing appended\n');
      return EXIT.failed;
    }
    const cacheDir = lifecycle.cacheDirFor(io.cwd, io.env);
    // $ORBITKV_NOW stands in for the clock the time is checked against (replaying a ledger, specs).
    const clock = io.env['ORBITKV_NOW'] !== undefined ? Date.parse(io.env['ORBITKV_NOW']) : undefined;
    if (clock !== undefined && Number.isNaN(clock)) throw new UsageError(`ORBITKV_NOW '${io.env['ORBITKV_NOW']}' is not a timestamp`);
    const result = lifecycle.appendEvidence(session.files, draft as never, lifecycle.ledgerAdmission(session.registry, session.files, { committed: lifecycle.snapshotOnCommit(cacheDir, session.registry, session.files), ...(key ? { key } : {}), ...(clock !== undefined ? { now: () => clock } : {}) }));
    if (!result.record) {
      show(result.diagnostics);
      io.err('evidence: nothing appended\n');
      return EXIT.failed;
    }
    io.out(`evidence: appended seq ${result.record.seq} ${result.record.type} ${result.record.subject} (${result.record.hash.slice(0, 12)})\n`);
    return EXIT.ok;
  },
};

function parseJson(text: string, option: string): ReturnType<typeof parseEvidenceJson> {
  return parseEvidenceJson(text, option);
}
