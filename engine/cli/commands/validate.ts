import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv validate [--registry DIR] [--format text|json|github]

Loads every contract (YAML with positions, JSON Schema) and runs the semantic rules.
  --registry DIR   registry folder (default: ./contracts, else the registry shipped in the package)
  --format FORMAT  text (default: file:line:col, code frame, hint, count), json (machine-readable),
                   github (workflow commands that annotate a pull request)
  --today DATE     the date recheck ages are measured against (YYYY-MM-DD; default: today, UTC)
Exit status: 0 no errors (warnings allowed), 1 errors, 2 usage.
`;

const FORMATS = ['text', 'json', 'github'] as const;
type Format = (typeof FORMATS)[number];

export const command: CommandModule = {
  name: 'validate',
  summary: 'check the contract registry: syntax, schema and semantic rules, with positioned diagnostics',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('validate', argv, { registry: { type: 'string' }, format: { type: 'string' }, today: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const format = (values.format ?? 'text') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`unknown format '${values.format}'`, `use --format ${FORMATS.join('|')}`);
    if (values.today !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.today)) throw new UsageError(`--today '${values.today}' is not a YYYY-MM-DD date`);
    const { loadRegistryParallel, resolveRegistryDir, validateRegistry } = await import('../../registry/index.js');
    const { formatDiagnostics, errorCount, sortDiagnostics } = await import('../../diagnostics/index.js');
    const dir = resolveRegistryDir(io.cwd, values.registry);
    const { registry, diagnostics } = await loadRegistryParallel(dir);
    const all = sortDiagnostics([...diagnostics, ...validateRegistry(registry, values.today !== undefined ? { today: values.today } : {})]);
    io.out(
      formatDiagnostics(all, {
        format,
        root: registry.root,
        cwd: io.cwd,
        color: format === 'text' && io.isTty && io.env['NO_COLOR'] === undefined,
        contracts: registry.entries.length,
      }),
    );
    return errorCount(all) > 0 ? EXIT.failed : EXIT.ok;
  },
};
