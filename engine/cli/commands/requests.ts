import { parseCommandLine } from '../args.js';
import { managerSocket } from '../manager-socket.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv requests [--request ID] [--limit N] [--socket PATH] [--registry DIR] [--format text|json]

Prints the Manager's lookup records, newest first: what matched, from which tier, and why the
rest missed (absent, evicted when, pending, lease expired, timed out, cancelled, profile
rejected at the handshake (ticket 0, the client name as the request), beyond the
boundary another rank agreed).
  --request ID   only one engine request's lookups (every rank)
  --limit N      at most N records (default 50)
  --socket PATH  the Manager's socket (default: as \`orbitkv serve\`, from the registry's product)
  --registry DIR the registry whose product names that default (default ./contracts, else the embedded one)
  --format FMT   text (default) or json
`;

export const command: CommandModule = {
  name: 'requests',
  summary: "print a running Manager's lookup records: what matched, from which tier, why the rest missed",
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('requests', argv, { socket: { type: 'string' }, registry: { type: 'string' }, request: { type: 'string' }, limit: { type: 'string' }, format: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text or --format json');
    if (values.limit !== undefined && !/^[0-9]+$/.test(values.limit)) throw new UsageError(`--limit '${values.limit}' is not a number`);
    const { askManager } = await import('../../runtime/client/index.js');
    const socket = (await managerSocket(io, values.socket, values.registry)).path;
    const answer = await askManager(socket, 'requests', { ...(values.request !== undefined ? { request: values.request } : {}), limit: Number(values.limit ?? 50) });
    if ('diagnostic' in answer) {
      const { formatDiagnostics } = await import('../../diagnostics/index.js');
      io.err(formatDiagnostics([answer.diagnostic], { format: 'text', root: io.cwd, cwd: io.cwd, color: false }));
      return EXIT.failed;
    }
    const records = answer.body.records as import('../../runtime/index.js').LookupRecord[];
    if (format === 'json') {
      io.out(`${JSON.stringify(records)}\n`);
      return EXIT.ok;
    }
    if (records.length === 0) {
      io.out('no lookup records\n');
      return EXIT.ok;
    }
    for (const r of records) {
      const miss = r.firstMiss ? `; block ${r.firstMiss.block} ${r.firstMiss.reason}${r.firstMiss.since ? ` at ${r.firstMiss.since}` : ''}` : '';
      io.out(`${r.at} ticket ${r.ticket} request ${r.request} rank ${r.rank} session ${r.session}: ${r.state}, boundary ${r.boundary ?? '-'} of ${r.blocks} (matched ${r.matched}: DRAM ${r.tiers.dram}, SSD ${r.tiers.ssd})${miss}${r.latencyUs !== null ? `, ${r.latencyUs} µs` : ''}\n`);
    }
    return EXIT.ok;
  },
};
