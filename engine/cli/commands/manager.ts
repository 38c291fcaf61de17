import { parseCommandLine } from '../args.js';
import { managerSocket } from '../manager-socket.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv manager status [--socket PATH] [--registry DIR] [--format text|json]

Asks a running Manager how it stands: tiers' use, sessions, operations in flight, hits by tier.
  --socket PATH  the Manager's socket (default: as \`orbitkv serve\`, from the registry's product)
  --registry DIR the registry whose product names that default (default ./contracts, else the embedded one)
  --format FMT   text (default) or json
Exit status: 0 answered, 1 no Manager answers, 2 usage.
`;

export const command: CommandModule = {
  name: 'manager',
  summary: 'ask a running Manager how it stands (`manager status`)',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandLine('manager', argv, { socket: { type: 'string' }, registry: { type: 'string' }, format: { type: 'string' } }, true);
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (positionals.length !== 1 || positionals[0] !== 'status') throw new UsageError(`unknown manager subcommand '${positionals.join(' ')}'`, 'orbitkv manager status');
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text or --format json');
    const { askManager } = await import('../../runtime/client/index.js');
    const { formatSize } = await import('../../runtime/index.js');
    const socket = (await managerSocket(io, values.socket, values.registry)).path;
    const answer = await askManager(socket, 'status', {});
    if ('diagnostic' in answer) {
      const { formatDiagnostics } = await import('../../diagnostics/index.js');
      io.err(formatDiagnostics([answer.diagnostic], { format: 'text', root: io.cwd, cwd: io.cwd, color: false }));
      return EXIT.failed;
    }
    const s = answer.body as unknown as import('../../runtime/index.js').ManagerStatus;
    if (format === 'json') {
      io.out(`${JSON.stringify(s)}\n`);
      return EXIT.ok;
    }
    const pct = (a: number, b: number) => (b === 0 ? '0%' : `${((100 * a) / b).toFixed(1)}%`);
    const lines = [
      `Manager pid ${s.pid}, protocol ${s.protocol}, since ${s.since}, socket ${s.socket}, blocks of ${formatSize(s.blockBytes)}`,
      `DRAM  ${s.tiers.dram.used}/${s.tiers.dram.slots} slots (${pct(s.tiers.dram.used, s.tiers.dram.slots)}) of ${formatSize(s.tiers.dram.bytes)}`,
      s.tiers.ssd ? `SSD   ${s.tiers.ssd.used}/${s.tiers.ssd.slots} slots (${pct(s.tiers.ssd.used, s.tiers.ssd.slots)}) of ${formatSize(s.tiers.ssd.bytes)}, ${s.tiers.ssd.backend}` : 'SSD   none',
      `blocks ${s.tiers.blocks} stored, ${s.tiers.pinned} leased`,
      `in flight: ${s.inFlight.tickets} tickets, ${s.inFlight.saves} saves, ${s.inFlight.restores} restores; ticket actors on ${s.ticketActors === 'worker' ? `a worker thread${s.ticketWorkerThread !== null ? ` (thread ${s.ticketWorkerThread})` : ''}` : 'the main thread'}`,
      `lookups answered ahead of their ticket actor: ${s.lookups.answeredAhead}${s.lookups.mismatched > 0 ? `; ${s.lookups.mismatched} whose actor then went elsewhere (a defect: see the log's lookup-answer-mismatch)` : ', each as its actor then went'}`,
      `restored blocks by tier: DRAM ${s.hits.dram} (${(100 * s.hits.ratio.dram).toFixed(1)}%), SSD ${s.hits.ssd} (${(100 * s.hits.ratio.ssd).toFixed(1)}%); checksum misses ${s.hits.misses}`,
      ...(s.recovery ? [`recovered at start: ${s.recovery.entries} entries, ${s.recovery.tornBytes} torn journal bytes dropped`] : []),
      `connections: ${s.connections.open} of at most ${s.connections.max}; ${s.connections.unsentBytes} reply bytes written but not yet read by their clients`,
      s.busyPoll ? `busy poll: ${s.busyPoll.windowUs} µs after each read; ${s.busyPoll.windows} windows, ${(s.busyPoll.pollingMs / 1000).toFixed(1)} s polling (${s.busyPoll.turns} loop turns)` : 'busy poll: off (the thread sleeps between requests)',
      `sessions: ${s.sessionCount}${s.sessionCount > s.sessions.length ? ` (the first ${s.sessions.length} listed)` : ''}`,
      ...s.sessions.map((x) => `  #${x.id} pid ${x.pid ?? '?'} ${x.client} ${x.engine} ${x.version} since ${x.since}: ${x.tickets} tickets, ${x.ops} ops`),
    ];
    io.out(`${lines.join('\n')}\n`);
    return EXIT.ok;
  },
};
