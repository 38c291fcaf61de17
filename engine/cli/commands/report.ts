import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT } from '../io.js';

const USAGE = `usage: orbitkv report [--check] [--registry DIR]

Writes <registry>/REGISTRY.md: the committed, reviewable summary of pins, contract states,
blockers and next actions, evaluated at the ledger's last record (no clock, so it only changes
when contracts or evidence change). It anchors the ledger head (seq and hash).
  --check   write nothing; exit 1 when REGISTRY.md differs from a fresh report
Exit status: 0 written / up to date, 1 drift or a damaged ledger, 2 usage.
`;

export const command: CommandModule = {
  name: 'report',
  summary: 'write or check REGISTRY.md, the committed summary of contract states and blockers',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('report', argv, { check: { type: 'boolean' }, registry: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const lifecycle = await import('../../lifecycle/index.js');
    const { diagnose, formatDiagnostics } = await import('../../diagnostics/index.js');
    const session = lifecycle.openSession(io.cwd, values.registry);
    const read = lifecycle.readLedgerFile(session.files);
    const show = (d: Parameters<typeof formatDiagnostics>[0]) => io.err(formatDiagnostics(d, { format: 'text', root: session.registry.root, cwd: io.cwd }));
    if (read.diagnostics.length) {
      show(read.diagnostics);
      return EXIT.failed;
    }
    const fold = lifecycle.foldLedger(session.registry, read.records);
    fold.position = read.end;
    const text = lifecycle.renderReport(session.registry, fold);
    const file = join(session.registry.root, 'REGISTRY.md');
    if (values.check) {
      let current: string | undefined;
      try {
        current = readFileSync(file, 'utf8');
      } catch {
        current = undefined;
      }
      if (current !== text) {
        show([diagnose('reportDrift', { file: 'REGISTRY.md' }, 'REGISTRY.md')]);
        return EXIT.failed;
      }
      io.out(`report: ${file} is up to date\n`);
      return EXIT.ok;
    }
    writeFileSync(file, text);
    io.out(`report: wrote ${file}\n`);
    return EXIT.ok;
  },
};
