import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';
import { MAX_RECORDS } from '../../runtime/records/request-ring.js';
import { BUSY_POLL_MAX_NS } from '../../../native/lib/busy-poll.js';

const USAGE = `usage: orbitkv serve [--socket PATH] [--dram SIZE] [--ssd DIR --ssd-size SIZE] [--block-size SIZE]
                     [--metrics HOST:PORT] [--registry DIR] [--lease-ms N] [--records N]
                     [--max-connections N] [--handshake-ms N] [--ticket-actors main|worker] [--busy-poll-us N]
                     [--faults SPEC]

Runs the Manager in the foreground: the cache engines connect to over a Unix socket.
  --socket PATH      socket (default <ENV>_MANAGER_SOCKET, else $XDG_RUNTIME_DIR/<prefix>/manager.sock, else
                     /tmp/<prefix>-$UID/manager.sock, from the registry's product: ORBITKV_MANAGER_SOCKET and
                     orbitkv for the embedded one); created 0600 in a 0700 folder, with the fd socket
                     (PATH.fd, where engines deposit their pages' memfd) and the lock (PATH.lock, an flock)
  --dram SIZE        DRAM tier, allocated once (default 1gb)
  --ssd DIR          SSD tier folder (preallocated data file and crash-safe index; default: no SSD tier)
  --ssd-size SIZE    SSD tier size (needed with --ssd)
  --block-size SIZE  bytes per cache block, a multiple of 4096 (default 256k)
  --metrics H:P      serve Prometheus metrics at http://H:P/metrics
  --registry DIR     registry whose rejection checks decide handshakes (default ./contracts, else the embedded one)
  --lease-ms N       how long a ready lookup holds its blocks (default 30000)
  --records N        lookup records kept for \`orbitkv requests\` (default 10000, at most 1000000; ~190 bytes each)
  --max-connections N  connections served at once; more are closed at accept and logged (default 1024)
  --handshake-ms N   a connection without HELLO for this long is closed (default 10000)
  --ticket-actors W  where the lookup tickets' xstate actors run: worker (default: a worker thread, whose
                     garbage is collected off the thread that answers lookups; replies to RELEASE, CANCEL
                     and RESTORE wait for the worker's step), or main (one thread; its collector then
                     pauses replies: start node with --min-semi-space-size=8 --max-semi-space-size=8 for it)
  --busy-poll-us N   after each read from a client, keep the Manager's thread polling its sockets for N µs
                     instead of sleeping (default 0: off; at most 10000000). A lookup then finds a core that did
                     not go idle: no wake-up (in a VM, no vCPU exit on HLT), warm caches. It costs that thread's
                     core for the whole window: with engines asking more often than every N µs, one core spins
                     for as long as they run. \`orbitkv manager status\` says how long it has polled
  --faults SPEC      qualification only (\`orbitkv gate run\`): inject faults, e.g.
                     ssd-read-hold-ms=1500,restore-copy-delay-ms=800 (also pages-populate-hold-ms); never on without this flag
Sizes: 1048576, 64k, 512MiB, 8gb (k/m/g/t are powers of 1024).
Logs are JSON lines on stderr. SIGTERM or SIGINT drains (in-flight I/O lands, leases go) and exits 0.
`;

export const command: CommandModule = {
  name: 'serve',
  summary: 'run the Manager: DRAM and SSD cache tiers behind a Unix socket',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('serve', argv, {
      socket: { type: 'string' },
      dram: { type: 'string' },
      ssd: { type: 'string' },
      'ssd-size': { type: 'string' },
      'block-size': { type: 'string' },
      metrics: { type: 'string' },
      registry: { type: 'string' },
      'lease-ms': { type: 'string' },
      records: { type: 'string' },
      'max-connections': { type: 'string' },
      'handshake-ms': { type: 'string' },
      'ticket-actors': { type: 'string' },
      'busy-poll-us': { type: 'string' },
      'checkpoint-every': { type: 'string' },
      faults: { type: 'string' },
    });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const { createLogger, defaultSocketPath, managerEndpoint, parseSize, startManager, ManagerStartError } = await import('../../runtime/index.js');
    const { diagnose, formatDiagnostics } = await import('../../diagnostics/index.js');
    const report = (d: ReturnType<typeof diagnose>) => {
      io.err(formatDiagnostics([d], { format: 'text', root: io.cwd, cwd: io.cwd, color: false }));
      return EXIT.failed;
    };
    const size = (flag: string, text: string | undefined, fallback: number): number | ReturnType<typeof diagnose> => {
      if (text === undefined) return fallback;
      return parseSize(text) ?? diagnose('badSize', {}, `--${flag}`, text);
    };
    const blockBytes = size('block-size', values['block-size'], 256 * 1024);
    if (typeof blockBytes !== 'number') return report(blockBytes);
    if (blockBytes <= 0 || blockBytes % 4096 !== 0) return report(diagnose('blockSizeUnaligned', {}, blockBytes, 4096));
    const dramBytes = size('dram', values.dram, 2 ** 30);
    if (typeof dramBytes !== 'number') return report(dramBytes);
    let ssd: { dir: string; bytes: number } | null = null;
    if (values.ssd !== undefined) {
      if (values['ssd-size'] === undefined) return report(diagnose('ssdSizeMissing', {}));
      const bytes = size('ssd-size', values['ssd-size'], 0);
      if (typeof bytes !== 'number') return report(bytes);
      ssd = { dir: resolve(io.cwd, values.ssd), bytes };
    }
    let metrics: { host: string; port: number } | null = null;
    if (values.metrics !== undefined) {
      const m = /^(.+):([0-9]{1,5})$/.exec(values.metrics);
      if (!m || Number(m[2]) > 65535) return report(diagnose('badListenAddress', {}, values.metrics));
      metrics = { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
    }
    const integer = (flag: string, text: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER) => {
      if (text === undefined) return fallback;
      if (!/^[0-9]+$/.test(text) || Number(text) < 1) throw new UsageError(`--${flag} '${text}' is not a positive integer`, `orbitkv serve --help`);
      if (Number(text) > max) throw new UsageError(`--${flag} ${text} is more than ${max}`, `orbitkv serve --help`);
      return Number(text);
    };
    const leaseMs = integer('lease-ms', values['lease-ms'], 30_000);
    const records = integer('records', values.records, 10_000, MAX_RECORDS);
    const maxConnections = integer('max-connections', values['max-connections'], 1024);
    const handshakeMs = integer('handshake-ms', values['handshake-ms'], 10_000);
    const ticketActors = values['ticket-actors'] ?? 'worker';
    if (ticketActors !== 'main' && ticketActors !== 'worker') throw new UsageError(`--ticket-actors '${ticketActors}' is not main or worker`, `orbitkv serve --help`);
    // 0 is a value here (off), unlike the flags above.
    const pollText = values['busy-poll-us'];
    if (pollText !== undefined && !(/^[0-9]+$/.test(pollText) && Number(pollText) <= BUSY_POLL_MAX_NS / 1000)) throw new UsageError(`--busy-poll-us '${pollText}' is not an integer in 0..${BUSY_POLL_MAX_NS / 1000} (0: off)`, `orbitkv serve --help`);
    const busyPollUs = pollText === undefined ? 0 : Number(pollText);
    const checkpointEvery = integer('checkpoint-every', values['checkpoint-every'], 4096);
    let faults: import('../../runtime/faults/index.js').FaultPlan | null = null;
    if (values.faults !== undefined) {
      const { parseFaultPlan } = await import('../../runtime/faults/index.js');
      const parsed = parseFaultPlan(values.faults);
      if ('problem' in parsed) return report(diagnose('faultPlanInvalid', {}, parsed.item, parsed.problem));
      faults = parsed;
    }
    const { loadRegistryParallel, productOf, resolveRegistryDir } = await import('../../registry/index.js');
    const dir = resolveRegistryDir(io.cwd, values.registry);
    const { registry, diagnostics } = await loadRegistryParallel(dir);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) return report(diagnose('registryUnloadable', {}, dir, errors.length));
    const logger = createLogger((line) => io.err(line));
    if (faults) {
      const { enableFaults } = await import('../../runtime/faults/index.js');
      enableFaults(faults);
      logger.warn('faults-enabled', { faults });
    }
    const socketPath = values.socket !== undefined ? resolve(io.cwd, values.socket) : defaultSocketPath(io.env, managerEndpoint(productOf(registry)));
    // The signal handlers come first: a SIGTERM while the Manager starts (its tiers allocate,
    // its socket binds) must drain it once started, not kill it with the default disposition.
    let signalled: string | null = null;
    let onSignal: ((signal: string) => void) | null = null;
    const handler = (signal: string) => {
      logger.info('signal', { signal });
      signalled ??= signal;
      onSignal?.(signal);
    };
    const term = () => handler('SIGTERM');
    const int = () => handler('SIGINT');
    process.once('SIGTERM', term);
    process.once('SIGINT', int);
    let manager;
    try {
      manager = await startManager({ socketPath, registry, blockBytes, dramBytes, ssd, metrics, leaseMs, records, checkpointEvery, maxConnections, handshakeMs, ticketActors, busyPollUs, logger });
    } catch (error) {
      process.off('SIGTERM', term);
      process.off('SIGINT', int);
      if (error instanceof ManagerStartError) return report(error.diagnostic);
      throw error;
    }
    const running = manager;
    await new Promise<void>((done) => {
      onSignal = () => void running.stop().then(done);
      if (signalled !== null) onSignal(signalled);
    });
    return EXIT.ok;
  },
};
