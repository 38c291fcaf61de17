import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv generate [--registry DIR] [--out DIR] [--check] [--dry-run] [--wheel]
                        [--adapter-version V] [--format text|json|github]

Generates the adapter packages of every runtime engine with a template (vLLM, SGLang; named by
the product policy, e.g. orbitkv-vllm), the TypeScript rejection module and a manifest of sha256
hashes from the contracts, and names each runtime engine that got no package and why. A registry
with errors (reading, schema or semantic validation) generates nothing.
  --registry DIR        registry folder (default: ./contracts, else the embedded registry)
  --out DIR             output folder (default: build/adapters)
  --check               write nothing; exit 1 naming every file that is missing, out of date,
                        edited by hand or stale (give the same --wheel/--adapter-version as
                        the generation it checks)
  --dry-run             write nothing; list what would be written and removed
  --wheel               also write installable wheels to <out>/wheels/
  --adapter-version V   version of the generated packages (default: 0.1.0)
  --format F            diagnostics as text (default), json or github
`;

export const command: CommandModule = {
  name: 'generate',
  summary: 'generate the adapter packages, rejection checks and wheels from the contracts',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('generate', argv, {
      registry: { type: 'string' },
      out: { type: 'string' },
      check: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      wheel: { type: 'boolean' },
      'adapter-version': { type: 'string' },
      format: { type: 'string' },
    });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const { DIAGNOSTIC_FORMATS, formatDiagnostics, errorCount } = await loadDiagnostics();
    const format = values.format ?? 'text';
    if (!(DIAGNOSTIC_FORMATS as readonly string[]).includes(format)) throw new UsageError(`unknown --format '${format}'`, `use one of: ${DIAGNOSTIC_FORMATS.join(', ')}`);
    const version = values['adapter-version'];
    if (version !== undefined && !/^\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?(\.dev\d+)?$/.test(version)) throw new UsageError(`--adapter-version '${version}' is not a PEP 440 version`, 'e.g. --adapter-version 0.2.0');
    const { loadRegistry, resolveRegistryDir, validateRegistry, generationBlockers } = await import('../../registry/index.js');
    const { generateAdapters, DEFAULT_OUT_DIR } = await import('../../../generators/index.js');
    const { registry, diagnostics: read } = loadRegistry(resolveRegistryDir(io.cwd, values.registry));
    // Generating from a registry with semantic errors (dangling references, disagreeing pins)
    // would emit wrong checks, and so would an unfilled `orbitkv new` placeholder.
    const loaded = errorCount(read) > 0 ? read : generationBlockers([...read, ...validateRegistry(registry)]);
    const show = (diagnostics: Parameters<typeof formatDiagnostics>[0], stream: 'out' | 'err') => {
      if (diagnostics.length === 0) return;
      io[stream](formatDiagnostics(diagnostics, { format: format as (typeof DIAGNOSTIC_FORMATS)[number], root: registry.root, cwd: io.cwd, color: io.isTty }));
    };
    if (errorCount(loaded) > 0) {
      show(loaded, 'err');
      return EXIT.failed;
    }
    const outDir = resolve(io.cwd, values.out ?? DEFAULT_OUT_DIR);
    const result = generateAdapters(registry, {
      outDir,
      check: values.check ?? false,
      dryRun: values['dry-run'] ?? false,
      wheel: values.wheel ?? false,
      ...(version !== undefined ? { version } : {}),
    });
    const findings = [...result.diagnostics, ...result.drift];
    show(findings, 'err');
    if (result.skipped.length) io.err(`generate: no adapter package for ${result.skipped.map((s) => `${s.engine} (${s.code})`).join(', ')}\n`);
    if (errorCount(result.diagnostics) > 0) return EXIT.failed;
    if (values.check) {
      if (result.drift.length > 0) return EXIT.failed;
      io.out(`generate: ${result.files.length} files up to date in ${outDir}\n`);
      return EXIT.ok;
    }
    const verb = values['dry-run'] ? 'would write' : 'wrote';
    for (const f of result.written) io.out(`${verb} ${f}\n`);
    for (const f of result.removed) io.out(`${values['dry-run'] ? 'would remove' : 'removed'} ${f} (stale)\n`);
    io.out(`generate: ${result.files.length} files in ${outDir} (${result.written.length} ${verb}, ${result.removed.length} ${values['dry-run'] ? 'would be removed' : 'removed'})\n`);
    return EXIT.ok;
  },
};

async function loadDiagnostics() {
  const format = await import('../../diagnostics/format.js');
  const index = await import('../../diagnostics/index.js');
  return { DIAGNOSTIC_FORMATS: format.DIAGNOSTIC_FORMATS, formatDiagnostics: format.formatDiagnostics, errorCount: index.errorCount };
}
