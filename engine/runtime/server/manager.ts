/**
 * Starting and stopping a Manager: tiers allocated once, the registry's rejection checks
 * compiled, the socket claimed (0600 in a 0700 folder), metrics served. `stop` drains: no new
 * connections, every session's I/O lands and its leases go, the SSD ring and index close,
 * the socket and lock are removed.
 */
import { chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import type { Registry } from '../../registry/index.js';
import { BlockCache } from '../catalog/index.js';
import { loadRejectionChecks } from '../handshake/index.js';
import type { Logger } from '../log/index.js';
import { RuntimeMetrics, serveMetrics } from '../metrics/index.js';
import { DEFAULT_MAX_PAYLOAD, PROTOCOL_VERSION } from '../protocol/index.js';
import { CacheService, type TicketActors } from '../service/index.js';
import type { Session } from '../session/index.js';
import { BUSY_POLL_MAX_NS, BusyPoll, adjustExternalMemory, peerCredentials } from '../../../native/index.js';
import { DramArena } from '../tiers/dram/index.js';
import { SsdTier } from '../tiers/ssd/index.js';
import { serveConnection } from './connection.js';
import { serveFdDeposits } from './fd-deposit.js';
import { MANAGER_ENV, MANAGER_NODE_FLAGS, applyManagerHeapProfile, youngGeneration } from './heap-profile.js';
import { lockPath, lockSocket } from './socket-lock.js';
import { SOCKET_PATH_LIMIT, fdSocketPath } from '../endpoint/index.js';
import { prepareSocketFolder, removeStale, socketAnswers } from './socket-path.js';

export interface ManagerOptions {
  socketPath: string;
  registry: Registry;
  blockBytes: number;
  dramBytes: number;
  ssd: { dir: string; bytes: number } | null;
  metrics: { host: string; port: number } | null;
  leaseMs?: number;
  maxTickets?: number;
  records?: number;
  /** Where the lookup-ticket actors run: 'worker' (default: a worker thread; see service/ticket-runner.ts) or 'main'. */
  ticketActors?: TicketActors;
  maxPayload?: number;
  maxBlocks?: number;
  checkpointEvery?: number;
  /** Connections served at once (default 1024): more are closed at accept, logged and counted. */
  maxConnections?: number;
  /** How long a connection may go without HELLO before it is closed (default 10000 ms). */
  handshakeMs?: number;
  /**
   * Microseconds the JS thread's loop keeps polling after each read from a client, instead of
   * sleeping (default 0: off; at most BUSY_POLL_MAX_US). See native/lib/busy-poll.ts.
   */
  busyPollUs?: number;
  logger: Logger;
}

export interface RunningManager {
  socketPath: string;
  metricsAddress: string | null;
  service: CacheService;
  status(): ManagerStatus;
  /** Drains and stops; resolves when everything is closed. */
  stop(): Promise<void>;
}

/**
 * Sessions listed by STATUS: at most this many (120-400 bytes each), so the reply fits one frame
 * of the default 64 KiB payload bound however many clients are connected.
 */
export const STATUS_SESSIONS = 128;

export interface ManagerStatus {
  pid: number;
  protocol: number;
  since: string;
  socket: string;
  blockBytes: number;
  tiers: ReturnType<BlockCache['usage']>;
  /** The first STATUS_SESSIONS sessions by id (the reply stays one bounded frame); `sessionCount` counts them all. */
  sessions: { id: number; pid: number | null; client: string; engine: string; version: string; since: string; tickets: number; ops: number }[];
  sessionCount: number;
  inFlight: { tickets: number; saves: number; restores: number };
  /** Lookups answered before their ticket actor took the OPEN, and those whose actor then went elsewhere (a defect, logged). */
  lookups: { answeredAhead: number; mismatched: number };
  /** Where the ticket actors run (`serve --ticket-actors`). */
  ticketActors: TicketActors;
  /** The ticket worker's thread id in the kernel (for top -H, ps -L, /proc), null with the actors in-process. */
  ticketWorkerThread: number | null;
  hits: { dram: number; ssd: number; misses: number; ratio: { dram: number; ssd: number } };
  recovery: SsdTier['index']['recovery'] | null;
  /** Connections open now (bound: `max`), and the reply bytes written for them that their clients have not read yet. */
  connections: { open: number; max: number; unsentBytes: number };
  /** `serve --busy-poll-us`: the window, windows opened, milliseconds spent polling, loop turns taken polling; null when off. */
  busyPoll: { windowUs: number; windows: number; pollingMs: number; turns: number } | null;
}

/** The longest busy-poll window `serve --busy-poll-us` takes: 10 s. */
export const BUSY_POLL_MAX_US = BUSY_POLL_MAX_NS / 1000;

export class ManagerStartError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

export async function startManager(o: ManagerOptions): Promise<RunningManager> {
  const fail = (d: Diagnostic): never => {
    throw new ManagerStartError(d);
  };
  applyManagerHeapProfile();
  const pollUs = o.busyPollUs ?? 0;
  if (!Number.isInteger(pollUs) || pollUs < 0 || pollUs > BUSY_POLL_MAX_US) throw new RangeError(`busyPollUs must be an integer in 0..${BUSY_POLL_MAX_US}, got ${pollUs}`);
  // The fd socket's path is the longer of the two.
  if (Buffer.byteLength(fdSocketPath(o.socketPath)) > SOCKET_PATH_LIMIT) fail(diagnose('socketPathTooLong', {}, fdSocketPath(o.socketPath), SOCKET_PATH_LIMIT));
  const dramSlots = Math.floor(o.dramBytes / o.blockBytes);
  if (dramSlots < 1) fail(diagnose('tierTooSmall', {}, 'DRAM', o.dramBytes, o.blockBytes));
  if (o.ssd && Math.floor(o.ssd.bytes / o.blockBytes) < 1) fail(diagnose('tierTooSmall', {}, 'SSD', o.ssd.bytes, o.blockBytes));
  const folder = prepareSocketFolder(o.socketPath);
  if (folder) fail(diagnose('socketFolderUnsafe', {}, folder.folder, folder.detail));
  const lock = await lockSocket(o.socketPath);
  if (!lock.held) return 'holder' in lock ? fail(diagnose('socketInUse', {}, o.socketPath, lock.holder)) : fail(diagnose('socketLockUnavailable', {}, lockPath(o.socketPath), lock.unavailable));
  let ssd: SsdTier | null = null;
  let listening: Server | null = null;
  let deposits: Server | null = null;
  let started: CacheService | null = null;
  let retrackArena: (() => void) | null = null;
  let busyPoll: BusyPoll | null = null;
  const release = async () => {
    removeStale(o.socketPath);
    removeStale(fdSocketPath(o.socketPath));
    await lock.release();
  };
  // Holding the lock, a socket file left behind is a dead Manager's, unless something that
  // takes no lock (another tool) answers on it.
  if (await socketAnswers(o.socketPath)) {
    await lock.release();
    return fail(diagnose('socketInUse', {}, o.socketPath, 'unknown (it holds no lock)'));
  }
  try {
    removeStale(o.socketPath);
    removeStale(fdSocketPath(o.socketPath));
    const checks = await loadRejectionChecks(o.registry);
    if (o.ssd) {
      try {
        ssd = new SsdTier({ dir: o.ssd.dir, slotBytes: o.blockBytes, slots: Math.floor(o.ssd.bytes / o.blockBytes), checkpointEvery: o.checkpointEvery ?? 4096 });
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        if (e.code === 'ECHECKPOINT') fail(diagnose('ssdIndexCorrupt', {}, `${o.ssd.dir}/index.checkpoint`, e.message));
        fail(diagnose('ssdUnusable', {}, o.ssd.dir, e.code ? `${e.code}: ${e.message}` : e.message));
      }
    }
    const arena = new DramArena(o.blockBytes, dramSlots);
    // Held until the Manager stops: V8 is not to weigh it (see untrackFromV8).
    retrackArena = arena.untrackFromV8();
    const cache = new BlockCache(arena, ssd);
    const sessions = new Set<Session>();
    const metrics = new RuntimeMetrics(cache, () => sessions.size);
    const service = new CacheService(cache, { leaseMs: o.leaseMs ?? 30_000, maxTickets: o.maxTickets ?? 65_536, records: o.records ?? 10_000, ticketActors: o.ticketActors ?? 'worker' }, metrics, o.logger);
    started = service;
    // The ticket worker runs before the first lookup can come (a worker still starting would let
    // events back up); a worker that cannot start fails the start.
    await service.ready;
    const since = new Date().toISOString();
    let nextSession = 1;
    if (o.busyPollUs) busyPoll = new BusyPoll(o.busyPollUs * 1000);
    const status = (): ManagerStatus => {
      const c = cache.counters;
      const total = c.hitsDram + c.hitsSsd;
      return {
        pid: process.pid,
        protocol: PROTOCOL_VERSION,
        since,
        socket: o.socketPath,
        blockBytes: o.blockBytes,
        tiers: cache.usage(),
        sessionCount: sessions.size,
        sessions: [...sessions].slice(0, STATUS_SESSIONS).map((s) => ({ id: s.id, pid: s.peer?.pid ?? null, client: s.client, engine: s.profile.engine, version: s.profile.version, since: s.since.toISOString(), tickets: s.tickets.size, ops: s.ops.size })),
        inFlight: { tickets: service.openTickets, saves: service.operations.saves, restores: service.operations.restores },
        lookups: { answeredAhead: service.ahead.answered, mismatched: service.ahead.mismatched },
        ticketActors: service.ticketActors,
        ticketWorkerThread: service.ticketWorkerThread,
        hits: { dram: c.hitsDram, ssd: c.hitsSsd, misses: c.checksumMisses, ratio: { dram: total ? c.hitsDram / total : 0, ssd: total ? c.hitsSsd / total : 0 } },
        recovery: ssd ? ssd.index.recovery : null,
        connections: { open: sockets.size, max: maxConnections, unsentBytes: [...sockets].reduce((n, x) => n + x.writableLength, 0) },
        busyPoll: busyPoll ? pollStatus(busyPoll) : null,
      };
    };
    const connections = new Set<Promise<void>>();
    const sockets = new Set<import('node:net').Socket>();
    const maxConnections = o.maxConnections ?? 1024;
    // Accepted paused: the connection chooses how its socket reads before the first read.
    const server: Server = createServer({ pauseOnConnect: true }, (socket) => {
      // SO_PEERCRED: the socket's mode already keeps other uids out; this refuses one that got
      // in anyway (a widened folder or socket mode) and says who it was.
      const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
      const peer = typeof fd === 'number' && fd >= 0 ? peerCredentials(fd) : null;
      if (peer === null || (typeof process.getuid === 'function' && peer.uid !== process.getuid())) {
        o.logger.warn('peer-refused', { uid: peer?.uid ?? null, pid: peer?.pid ?? null, allowed: process.getuid?.() ?? null });
        metrics.connectionsRefused.inc({ reason: 'peer-uid' });
        socket.destroy();
        return;
      }
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      const done = serveConnection(socket, {
        service,
        checks,
        logger: o.logger,
        metrics,
        maxPayload: o.maxPayload ?? DEFAULT_MAX_PAYLOAD,
        maxBlocks: o.maxBlocks ?? 4096,
        maxInFlight: 256,
        nextSession: () => nextSession++,
        fdSocket: fdSocketPath(o.socketPath),
        status,
        sessions,
        handshakeMs: o.handshakeMs ?? 10_000,
        busyPoll,
      }, { pid: peer.pid, uid: peer.uid });
      connections.add(done);
      void done.then(() => connections.delete(done));
    });
    // Past the bound, Node closes a new connection at accept ('drop'): each engine keeps a few, so
    // this is a leak or a flood, and the Manager keeps its fds for the clients it serves.
    server.maxConnections = maxConnections;
    // Logged at most once a second, with how many went since the last line (a flood of connects must not flood the log).
    let dropped = 0;
    let droppedLogged = 0;
    server.on('drop', () => {
      metrics.connectionsRefused.inc({ reason: 'max-connections' });
      dropped++;
      const now = Date.now();
      if (now - droppedLogged < 1000) return;
      o.logger.warn('connections-dropped', { dropped, open: sockets.size, max: maxConnections });
      dropped = 0;
      droppedLogged = now;
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The folder is 0700 already; the socket is made 0600 before anyone can have connected
      // through a wider mode, because nobody else can traverse the folder.
      server.listen(o.socketPath, () => resolve());
    });
    listening = server;
    chmodSync(o.socketPath, 0o600);
    const fdServer = serveFdDeposits(sessions, o.logger, metrics);
    await new Promise<void>((resolve, reject) => {
      fdServer.once('error', reject);
      fdServer.listen(fdSocketPath(o.socketPath), () => resolve());
    });
    deposits = fdServer;
    chmodSync(fdSocketPath(o.socketPath), 0o600);
    let http: HttpServer | null = null;
    if (o.metrics) {
      const { host, port } = o.metrics;
      http = await serveMetrics(metrics.registry, host, port).catch((error: NodeJS.ErrnoException) => fail(diagnose('metricsUnavailable', {}, `${host}:${port}`, error.code ?? error.message)));
    }
    const address = http ? (http.address() as AddressInfo) : null;
    const young = youngGeneration();
    // Started without the node flags (e.g. `node bin/orbitkv.js serve`): it serves, with whatever young generation V8 gave it.
    if (!young.configured) o.logger.warn('heap-flags-missing', { newSpaceBytes: young.newSpaceBytes, fix: `start node with ${MANAGER_NODE_FLAGS.join(' ')} (the orbitkv command does)` });
    // Each variable as the process was started with it (an operator's own value counts).
    const unset = Object.keys(MANAGER_ENV).filter((name) => process.env[name] === undefined);
    if (unset.length > 0) o.logger.warn('manager-env-missing', { unset, fix: `start the Manager with ${Object.entries(MANAGER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} in its environment (the orbitkv command does)` });
    o.logger.info('serving', { socket: o.socketPath, blockBytes: o.blockBytes, dramSlots, ssdSlots: ssd?.slots ?? 0, ssdBackend: ssd?.backend ?? null, recovered: ssd?.index.recovery ?? null, metrics: address ? `${address.address}:${address.port}` : null, youngGenerationBytes: young.newSpaceBytes, youngGenerationConfigured: young.configured, v8ExternalBytes: adjustExternalMemory(0), mallocArenaMax: process.env['MALLOC_ARENA_MAX'] ?? null, ticketActors: service.ticketActors, ticketWorkerThread: service.ticketWorkerThread, busyPollUs: o.busyPollUs ?? 0 });
    let stopping: Promise<void> | null = null;
    return {
      socketPath: o.socketPath,
      metricsAddress: address ? `${address.address}:${address.port}` : null,
      service,
      status,
      stop: () =>
        (stopping ??= (async () => {
          o.logger.info('draining', { sessions: sessions.size, tickets: service.openTickets });
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          const fdClosed = new Promise<void>((resolve) => fdServer.close(() => resolve()));
          for (const s of sessions) void s.close();
          await Promise.allSettled([...sessions].map((s) => s.close()));
          // Connections end after their sessions have drained.
          for (const socket of sockets) socket.end();
          await Promise.allSettled([...connections].map(async (c) => c));
          await closed;
          await fdClosed;
          await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
          await service.close();
          busyPoll?.close();
          if (ssd) {
            await ssd.index.checkpoint();
            await ssd.close();
          }
          await release();
          retrackArena?.();
          o.logger.info('stopped', {});
        })()),
    };
  } catch (error) {
    // Nothing started may keep the process alive: the socket stops listening (and is removed).
    if (listening) await new Promise<void>((resolve) => listening!.close(() => resolve()));
    if (deposits) await new Promise<void>((resolve) => deposits!.close(() => resolve()));
    await started?.close();
    busyPoll?.close();
    await release();
    await ssd?.close().catch(() => undefined);
    retrackArena?.();
    throw error;
  }
}

function pollStatus(p: BusyPoll): NonNullable<ManagerStatus['busyPoll']> {
  const s = p.stats();
  return { windowUs: p.windowNs / 1000, windows: s.windows, pollingMs: Math.round(s.pollingNs / 1e3) / 1e3, turns: s.turns };
}
