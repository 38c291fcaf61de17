import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv package-check WHEEL... [--registry DIR] [--format text|json|github]

The packaging gate from the policy contracts: each wheel must hold the required files and its
engine's plugin entry point, pin its engine exactly in an extra, match its RECORD hashes, and
hold no retired path or module and no compiled bytecode. Exit 0 when every wheel passes, 1
naming each violation.
`;

export const command: CommandModule = {
  name: 'package-check',
  summary: 'check adapter wheels against the packaging policy (retired paths, pins, entry points)',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandLine('package-check', argv, { registry: { type: 'string' }, format: { type: 'string' } }, true);
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (positionals.length === 0) throw new UsageError('no wheel given', 'orbitkv package-check build/adapters/wheels/*.whl');
    const { DIAGNOSTIC_FORMATS, formatDiagnostics } = await import('../../diagnostics/format.js');
    const { errorCount } = await import('../../diagnostics/index.js');
    const format = values.format ?? 'text';
    if (!(DIAGNOSTIC_FORMATS as readonly string[]).includes(format)) throw new UsageError(`unknown --format '${format}'`, `use one of: ${DIAGNOSTIC_FORMATS.join(', ')}`);
    const { loadRegistry, resolveRegistryDir } = await import('../../registry/index.js');
    const { checkWheel } = await import('../../../generators/index.js');
    const { registry, diagnostics: loaded } = loadRegistry(resolveRegistryDir(io.cwd, values.registry));
    const findings = [...loaded];
    if (errorCount(loaded) === 0) {
      for (const wheel of positionals) {
        const path = resolve(io.cwd, wheel);
        findings.push(...checkWheel(registry, readFileSync(path), path));
      }
    }
    if (findings.length) io.err(formatDiagnostics(findings, { format: format as (typeof DIAGNOSTIC_FORMATS)[number], root: registry.root, cwd: io.cwd, color: io.isTty }));
    if (errorCount(findings) > 0) return EXIT.failed;
    io.out(`package-check: ${positionals.length} wheel(s) pass\n`);
    return EXIT.ok;
  },
};
