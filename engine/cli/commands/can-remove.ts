import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv can-remove HOOK-ID [--registry DIR] [--at DATE]

Answers like a deploy gate: may this hook be removed now? Yes when its replacement is released
on the pinned line and consumed by the adapter and every removal gate cell passed on that
profile with equal before/after hashes (independent acceptance where a gate requires it), or,
for an opt-in hook, when its drop gates passed. Otherwise prints every blocking condition and cell.
A removed hook answers yes only while the gate cells that cover its removal have passed.
Exit status: 0 yes (or removed and covered), 1 no, 2 usage (not a hook).
`;

export const command: CommandModule = {
  name: 'can-remove',
  summary: 'exit 0 when a hook may be removed now, 1 with the blocking cells otherwise',
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseCommandLine('can-remove', argv, { registry: { type: 'string' }, at: { type: 'string' } }, true);
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new UsageError('expected one HOOK-ID', 'orbitkv can-remove hook.sglang.init-cuda-graphs');
    const id = positionals[0]!;
    const lifecycle = await import('../../lifecycle/index.js');
    const { printable: p } = await import('../../diagnostics/index.js');
    const at = values.at !== undefined ? lifecycle.parseAt(values.at) : undefined;
    if (values.at !== undefined && at === undefined) throw new UsageError(`--at '${values.at}' is not a date`, 'use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ');
    const session = lifecycle.openSession(io.cwd, values.registry);
    const contract = session.registry.get(id);
    if (!contract) throw new UsageError(`no contract '${id}' in the registry`, 'orbitkv status lists them');
    if (contract.kind !== 'hook') throw new UsageError(`'${id}' is a ${contract.kind}, not a hook`, 'can-remove answers for hooks; use `orbitkv explain ID` for other contracts');
    const loaded = lifecycle.loadFold(session.registry, session.files, at !== undefined ? { until: at } : {});
    if (loaded.diagnostics.length) {
      const { formatDiagnostics } = await import('../../diagnostics/index.js');
      io.err(formatDiagnostics(loaded.diagnostics, { format: 'text', root: session.registry.root, cwd: io.cwd }));
      return EXIT.failed;
    }
    const matrix = lifecycle.contractMatrix(session.registry, loaded.state, id)!;
    const context = loaded.state.contracts[id]!.context as import('../../lifecycle/index.js').RequirementContext;
    // A removal, declared or recorded, stands only while the cells that cover it have passed.
    const covered = matrix.state === 'removed' && lifecycle.coveringCellsPassed(context);
    if (matrix.state === 'removable' || covered) {
      io.out(`${id}: yes (${covered ? 'already removed; its covering gate cells passed' : 'every removal condition and gate cell is met'})\n`);
      return EXIT.ok;
    }
    io.out(`${id}: no (${matrix.state === 'removed' ? 'removed, but its covering gate cells have not passed on the current pins' : matrix.state})\n`);
    if (matrix.state === 'removed') {
      const path = context.via === 'drop' ? 'drop' : 'removal';
      for (const cell of matrix.cells) if (cell.blocker && cell.path === path) io.out(`  ${p(cell.gate)} [${p(cell.cell)}] ${cell.result} on ${p(cell.profile)}: ${p(cell.blocker)}\n`);
      if (!matrix.cells.some((c) => c.path === path)) io.out('  no gate cell covers the removal\n');
      return EXIT.failed;
    }
    for (const c of matrix.conditions) if (c.blocker) io.out(`  condition ${c.index} ${p(c.upstream ?? '')}: ${p(c.blocker)}\n    requires: ${p(c.requires)}\n`);
    for (const cell of matrix.cells) if (cell.blocker) io.out(`  ${cell.path === 'drop' ? 'drop ' : ''}${p(cell.gate)} [${p(cell.cell)}] ${cell.result} on ${p(cell.profile)}: ${p(cell.blocker)}\n`);
    if (matrix.conditions.length + matrix.cells.length === 0) io.out('  no removal gate declared\n');
    return EXIT.failed;
  },
};
