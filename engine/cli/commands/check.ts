import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv check [--registry DIR] [--out DIR] [--no-wheel] [--at DATE] [--format text|json]

The main job, in one command, on the embedded registry unless --registry says otherwise:
  1. validate  every contract (syntax, schema, semantic rules); errors stop here
  2. generate  the vLLM and SGLang adapter packages, their wheels and the TypeScript
               rejection module into --out (default: build/adapters), removing stale files
  3. verify    the evidence ledger's hash chain
  4. status    the removal-gate board: every contract's state, what blocks it, what is next
Options:
  --registry DIR  registry folder (default: ./contracts, else the registry shipped in the package)
  --out DIR       adapter output folder (default: build/adapters)
  --no-wheel      skip the installable wheels
  --at DATE       show the board as of DATE (YYYY-MM-DD)
  --format F      text (default) or json (one object with every step's result)
Exit status: 0 the registry is valid, the adapters are generated and the ledger is intact;
1 any step failed; 2 usage.
`;

export const command: CommandModule = {
  name: 'check',
  summary: 'the main job: validate the registry, generate the adapters, verify the ledger, print the removal-gate board',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('check', argv, {
      registry: { type: 'string' },
      out: { type: 'string' },
      'no-wheel': { type: 'boolean' },
      at: { type: 'string' },
      format: { type: 'string' },
    });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text|json');
    const { loadRegistry, resolveRegistryDir, validateRegistry, generationBlockers } = await import('../../registry/index.js');
    const { formatDiagnostics, errorCount, sortDiagnostics } = await import('../../diagnostics/index.js');
    const lifecycle = await import('../../lifecycle/index.js');
    const at = values.at !== undefined ? lifecycle.parseAt(values.at) : undefined;
    if (values.at !== undefined && at === undefined) throw new UsageError(`--at '${values.at}' is not a date`, 'use YYYY-MM-DD');

    const json: Record<string, unknown> = {};
    const text = (s: string) => {
      if (format === 'text') io.out(s);
    };

    // 1. validate
    const dir = resolveRegistryDir(io.cwd, values.registry);
    const { registry, diagnostics: loadDiagnostics } = loadRegistry(dir);
    const today = (at ?? new Date().toISOString()).slice(0, 10);
    const diagnostics = sortDiagnostics([...loadDiagnostics, ...validateRegistry(registry, { today })]);
    const errors = errorCount(diagnostics);
    const blockers = generationBlockers(diagnostics).length;
    text(`== validate: ${registry.root}\n`);
    text(formatDiagnostics(diagnostics, { format: 'text', root: registry.root, cwd: io.cwd, contracts: registry.entries.length, color: io.isTty && io.env['NO_COLOR'] === undefined }));
    json['validate'] = JSON.parse(formatDiagnostics(diagnostics, { format: 'json', root: registry.root, cwd: io.cwd, contracts: registry.entries.length }));
    if (blockers > 0) {
      text(`\ncheck: stopped before generating: ${errors} error(s) and ${blockers - errors} unfilled placeholder(s); fix them and run again\n`);
      if (format === 'json') io.out(`${JSON.stringify(json, null, 2)}\n`);
      return EXIT.failed;
    }

    // 2. generate
    const { generateAdapters, DEFAULT_OUT_DIR } = await import('../../../generators/index.js');
    const outDir = resolve(io.cwd, values.out ?? DEFAULT_OUT_DIR);
    const generated = generateAdapters(registry, { outDir, wheel: !values['no-wheel'] });
    const generateErrors = errorCount(generated.diagnostics);
    text(`\n== generate: ${outDir}\n`);
    if (generated.diagnostics.length || generated.drift.length) {
      text(formatDiagnostics([...generated.diagnostics, ...generated.drift], { format: 'text', root: registry.root, cwd: io.cwd }));
    }
    const wheels = generated.files.filter((f) => f.endsWith('.whl'));
    text(`${generated.files.length} files (${generated.written.length} written, ${generated.removed.length} stale removed)${wheels.length ? `; wheels: ${wheels.join(', ')}` : ''}\n`);
    json['generate'] = { outDir, files: generated.files, written: generated.written, removed: generated.removed, diagnostics: [...generated.diagnostics, ...generated.drift] };

    // 3. ledger + 4. board
    const files = lifecycle.ledgerFiles(registry.root);
    const cacheDir = lifecycle.cacheDirFor(io.cwd, io.env);
    const { board, loaded } = lifecycle.loadBoard(registry, files, {
      ...(at !== undefined ? { until: at } : {}),
      ...(cacheDir !== undefined ? { cacheDir } : {}),
    });
    const cacheWarnings = [...lifecycle.cacheDirNotice(io.env), ...loaded.warnings];
    text(`\n== ledger: ${loaded.diagnostics.length === 0 ? 'hash chain intact' : `${loaded.diagnostics.length} problem(s)`}\n`);
    if (loaded.diagnostics.length || cacheWarnings.length) text(formatDiagnostics([...loaded.diagnostics, ...cacheWarnings], { format: 'text', root: registry.root, cwd: io.cwd }));
    text(`\n== status\n`);
    text(lifecycle.renderBoard(board, 'text'));
    if (format === 'json') {
      json['ledger'] = { diagnostics: [...loaded.diagnostics, ...cacheWarnings] };
      json['status'] = JSON.parse(lifecycle.renderBoard(board, 'json'));
      io.out(`${JSON.stringify(json, null, 2)}\n`);
    }
    return generateErrors > 0 || loaded.diagnostics.length > 0 ? EXIT.failed : EXIT.ok;
  },
};
