import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv status [--format text|markdown|json] [--at DATE] [--kind K[,K]] [--state S[,S]] [--stale]
                      [--registry DIR] [--no-cache]

A board of every contract: its state (the fold of the evidence ledger through its lifecycle),
since when, what blocks it and the next action; contracts whose last recheck is older than the
recheck policy are marked stale.
  --at DATE     show the board as it was: evidence after DATE (YYYY-MM-DD = end of that day,
                or a UTC timestamp) is left out and staleness is measured at DATE
  --format F    text (default), markdown, json
  --kind K      only contracts of these kinds (comma-separated: hook,gap,...)
  --state S     only contracts in these states (comma-separated: kept,removable,rejected,pending,...)
  --stale       only contracts whose last recheck is older than the recheck policy
  --no-cache    fold the whole ledger (default: snapshot cache in $ORBITKV_CACHE_DIR or .orbitkv-cache/)
Exit status: 0 shown, 1 the ledger is damaged (the board covers the records before the first bad line), 2 usage.
`;

const FORMATS = ['text', 'markdown', 'json'] as const;

export const command: CommandModule = {
  name: 'status',
  summary: 'board of every contract: state, since when, what blocks it, next action (--at for the past)',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('status', argv, { format: { type: 'string' }, at: { type: 'string' }, kind: { type: 'string' }, state: { type: 'string' }, stale: { type: 'boolean' }, registry: { type: 'string' }, 'no-cache': { type: 'boolean' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const format = (values.format ?? 'text') as (typeof FORMATS)[number];
    if (!FORMATS.includes(format)) throw new UsageError(`unknown format '${values.format}'`, `use --format ${FORMATS.join('|')}`);
    const list = (text: string | undefined) => (text === undefined ? undefined : text.split(',').map((s) => s.trim()).filter(Boolean));
    const kinds = list(values.kind);
    const { CONTRACT_KINDS } = await import('../../model/index.js');
    const unknownKind = kinds?.find((k) => !(CONTRACT_KINDS as readonly string[]).includes(k));
    if (unknownKind !== undefined) throw new UsageError(`unknown kind '${unknownKind}'`, `kinds: ${CONTRACT_KINDS.join(', ')}`);
    const states = list(values.state);
    const lifecycle = await import('../../lifecycle/index.js');
    const at = values.at !== undefined ? lifecycle.parseAt(values.at) : undefined;
    if (values.at !== undefined && at === undefined) throw new UsageError(`--at '${values.at}' is not a date`, 'use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ');
    const { formatDiagnostics } = await import('../../diagnostics/index.js');
    const session = lifecycle.openSession(io.cwd, values.registry);
    const cacheDir = values['no-cache'] ? undefined : lifecycle.cacheDirFor(io.cwd, io.env);
    const { board, loaded } = lifecycle.loadBoard(session.registry, session.files, {
      ...(at !== undefined ? { until: at } : {}),
      ...(cacheDir !== undefined ? { cacheDir } : {}),
    });
    // Filters narrow the rows shown; the ledger and board diagnostics are reported whole.
    if (kinds || states || values.stale) {
      board.rows = board.rows.filter((r) => (!kinds || kinds.includes(r.kind)) && (!states || states.includes(r.state)) && (!values.stale || r.stale !== undefined));
    }
    io.out(lifecycle.renderBoard(board, format));
    const cacheWarnings = values['no-cache'] ? [] : [...lifecycle.cacheDirNotice(io.env), ...loaded.warnings];
    const problems = [...session.diagnostics.filter((d) => d.severity === 'error'), ...loaded.diagnostics, ...board.diagnostics, ...cacheWarnings];
    if (problems.length && format !== 'json') io.err(formatDiagnostics(problems, { format: 'text', root: session.registry.root, cwd: io.cwd }));
    return loaded.diagnostics.length ? EXIT.failed : EXIT.ok;
  },
};
