import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv explain ID [--format text|json] [--at DATE] [--registry DIR]

Why a contract is in its state: the evidence records that moved it (state changes first), the
records its lifecycle refused, its upstream conditions (released on the pinned line? consumed
by the adapter?) and the matrix of gate × cell × profile × result behind it, each blocking cell
with its reason.
Exit status: 0 explained, 1 the ledger is damaged, 2 usage.
`;

export const command: CommandModule = {
  name: 'explain',
  summary: 'the evidence that moved a contract and the gate × cell × profile matrix still missing',
  async run(argv: string[], io: CliIo): Promise<number> {
    const parsed = parseCommandLine('explain', argv, { format: { type: 'string' }, at: { type: 'string' }, registry: { type: 'string' } }, true);
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new UsageError('expected one contract ID', 'orbitkv explain hook.sglang.init-cuda-graphs');
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text|json');
    const id = positionals[0]!;
    const lifecycle = await import('../../lifecycle/index.js');
    // Contract and ledger text goes through `printable`: one field, one line, no control characters.
    const { printable: p } = await import('../../diagnostics/index.js');
    const at = values.at !== undefined ? lifecycle.parseAt(values.at) : undefined;
    if (values.at !== undefined && at === undefined) throw new UsageError(`--at '${values.at}' is not a date`, 'use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ');
    const session = lifecycle.openSession(io.cwd, values.registry);
    const contract = session.registry.get(id);
    if (!contract) throw new UsageError(`no contract '${id}' in the registry`, 'orbitkv status lists them');
    const read = lifecycle.readLedgerFile(session.files);
    const fold = lifecycle.foldLedger(session.registry, read.records, at !== undefined ? { until: at } : {});
    const board = lifecycle.boardFromFold(session.registry, fold, at ?? new Date().toISOString());
    const row = board.rows.find((r) => r.id === id)!;
    const folded = fold.contracts[id];
    const matrix = lifecycle.contractMatrix(session.registry, fold, id);
    const bySeq = (seq: number) => read.records[seq - 1];
    const moved = (folded?.evidence ?? []).map((seq) => bySeq(seq)).filter((r) => r !== undefined);
    const refused = fold.refusals.filter((r) => r.subject === id);
    if (format === 'json') {
      io.out(`${JSON.stringify({ row, history: folded?.history ?? [], evidence: moved, refused, matrix: matrix ?? null }, null, 2)}\n`);
    } else {
      let out = `${p(id)} (${p(contract.kind)}): ${p(row.state)}${row.since ? ` since ${p(row.since)}` : ' since the start'}${row.stale ? ' — stale' : ''}\n  ${p(contract.title)}\n`;
      if (row.reason) out += `  reason: ${p(row.reason)}\n`;
      const verified = (folded?.context as { verify?: { result: string; at: string; seq: number } | null } | undefined)?.verify;
      if (verified) out += `  source verification: ${p(verified.result)} (seq ${verified.seq}, ${p(verified.at)}); it records and authorizes nothing\n`;
      out += `\nstate changes:\n`;
      if (!folded?.history.length) out += '  none\n';
      for (const h of folded?.history ?? []) {
        const r = bySeq(h.seq);
        out += `  seq ${h.seq} ${p(h.at)}  ${p(h.from)} → ${p(h.to)}  (${p(r?.type ?? '?')} by ${p(r?.actor ?? '?')}${r && r.subject !== id ? ` on ${p(r.subject)}` : ''})\n`;
      }
      out += `\nevidence that moved it (${moved.length}):\n`;
      if (!moved.length) out += '  none\n';
      for (const r of moved) out += `  seq ${r.seq} ${p(r.at)}  ${p(r.type)} ${p(r.subject)} by ${p(r.actor)}${p(summary(r.data))}\n`;
      if (refused.length) {
        out += `\nrefused (changed nothing):\n`;
        for (const r of refused) out += `  seq ${r.seq} ${p(r.type)} in state ${p(r.state)}\n`;
      }
      if (matrix && matrix.conditions.length) {
        out += `\nupstream conditions (released on the pinned line, then consumed by the adapter):\n`;
        for (const c of matrix.conditions) out += `  #${c.index} ${p(c.upstream ?? '(untracked)')}: ${p(c.blocker ?? `met (consumed at seq ${c.consumed?.seq})`)}\n    requires: ${p(c.requires)}\n    release: ${p(c.release)}\n`;
      }
      if (matrix && matrix.cells.length) {
        out += `\nmatrix (gate × cell × profile × result)${matrix.adapter ? `, consuming adapter ${p(matrix.adapter.slice(0, 12))}` : ''}:\n`;
        const rows = matrix.cells.map((c) => [c.path, c.gate, c.cell, c.profile, c.result, c.actor ?? '-', c.seq !== undefined ? String(c.seq) : '-', c.blocker ? `blocks: ${c.blocker}` : 'ok'].map(p));
        const header = ['path', 'gate', 'cell', 'profile', 'result', 'actor', 'seq', 'status'];
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        const line = (cells: string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`;
        out += line(header) + rows.map(line).join('');
      }
      if (row.blockers.length) out += `\nblocked by:\n${row.blockers.map((b) => `  ${p(b)}\n`).join('')}`;
      out += `\nnext: ${p(row.next)}\n`;
      io.out(out);
    }
    // What the contract's YAML says that its evidence does not (OKV4207 and the like): warnings, named here.
    const own = board.diagnostics.filter((d) => d.contract === id);
    if (own.length) {
      const { formatDiagnostics } = await import('../../diagnostics/index.js');
      io.err(formatDiagnostics(own, { format: 'text', root: session.registry.root, cwd: io.cwd }));
    }
    if (read.diagnostics.length) {
      const { formatDiagnostics } = await import('../../diagnostics/index.js');
      io.err(formatDiagnostics(read.diagnostics, { format: 'text', root: session.registry.root, cwd: io.cwd }));
      return EXIT.failed;
    }
    return EXIT.ok;
  },
};

function summary(data: object): string {
  const d = data as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of ['result', 'state', 'verdict', 'version', 'line', 'condition']) if (d[key] !== undefined) parts.push(`${key}=${String(d[key])}`);
  if (d['cell']) parts.push(`cell=${Object.entries(d['cell'] as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',')}`);
  return parts.length ? ` (${parts.join(' ')})` : '';
}
