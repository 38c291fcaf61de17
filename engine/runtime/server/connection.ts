/**
 * One client connection: frames in, the handshake first, then requests dispatched to the
 * cache service, replies out with the request's id. A frame fault (bad magic, oversize,
 * truncated) gets one ERROR frame and closes this connection only; a bad request payload is
 * answered with ERROR and the connection stays open.
 */
import type { Socket } from 'node:net';
import { diagnose, type CatalogueKey, type ArgsOf } from '../../diagnostics/index.js';
import { decideHandshake, type RejectionChecks } from '../handshake/index.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/index.js';
import { PageFile, registrationBytes } from '../pages/index.js';
import { ChainMemo, FrameDecoder, HEADER_BYTES, LOOKUP_REPLY_BYTES, LOOKUP_REPLY_GRANT_AT, NamespaceMemo, OPCODE, OPCODE_NAMES, PROTOCOL_VERSION, checks, decodeLookupRequest, decodeReleaseRequest, encodeFrame, encodeTextFrame, jsonPayload, parsePayload, writeFrameHeader, writeLookupReply, type Frame, type LookupRequest } from '../protocol/index.js';
import { CacheService, RequestError, type LookupReply } from '../service/index.js';
import { Session, type TicketTable } from '../session/index.js';
import { adoptReadBuffer } from './read-buffer.js';

export interface ConnectionContext {
  service: CacheService;
  checks: RejectionChecks;
  logger: Logger;
  metrics: RuntimeMetrics;
  maxPayload: number;
  maxBlocks: number;
  /** Most requests one connection may have in flight before its socket stops being read. */
  maxInFlight: number;
  nextSession(): number;
  /** Where the engine deposits its pages' memfd (see fd-deposit.ts). */
  fdSocket: string;
  status(): unknown;
  sessions: Set<Session>;
  /** How long a connection may stay without HELLO (or OPERATOR) before it is closed. */
  handshakeMs: number;
  /** Touched at each chunk read (`serve --busy-poll-us`): the loop then polls for the window instead of sleeping. */
  busyPoll?: { touch(): void } | null;
}

/** Most pending lookups of one connection that do not count against its in-flight bound. */
const MAX_DETACHED = 256;

/**
 * How a lookup's answer is written (JSON or binary); a ready ticket's carries its grant from
 * `grants`, its session's table (`ahead`: the ticket is filed there later in this turn).
 */
type LookupResult = (requestId: number, r: LookupReply, grants: TicketTable | null, ahead: boolean) => void;

const coded = <K extends CatalogueKey>(key: K, ...args: ArgsOf<K>) => {
  const d = diagnose(key, {}, ...args);
  return { code: d.code, message: d.message, ...(d.hint ? { hint: d.hint } : {}) };
};

/** What `releasesLast` asks of the service. */
export interface ReleaseOrder {
  /** Whether `tickets` more lookups could open now. */
  hasRoom(tickets: number): boolean;
  /** Whether the ticket a RELEASE names is open in this session and answered (no longer pending). */
  answered(ticket: number): boolean;
}

/**
 * A read's frames, each binary RELEASE of an answered ticket moved past the LOOKUPs that follow
 * it (never past any other frame), when the ticket table has room for every lookup of the read
 * without those releases. A client releases the ticket its scheduler did not select moments
 * before its next lookup, and a busy or idle Manager often reads both at once: the lookup is then
 * answered first and the release carried out right after, in the same turn. Only a release of a
 * ticket that is open in this session and already answered moves: no lookup can change such a
 * ticket (rank agreement settles pending tickets only, and leases are counts). A release of a
 * pending ticket (which a lookup of another rank could make ready), of an unknown ticket (whose id
 * a lookup could take), or one that does not parse stays where it came, and so does every other
 * frame: a STATUS or a restore after a release sees it done.
 */
export function releasesLast(frames: Frame[], order: ReleaseOrder): Frame[] {
  const movable = (f: Frame) => {
    if (f.opcode !== OPCODE.releaseBinary) return false;
    const ticket = decodeReleaseRequest(f.payload);
    return typeof ticket === 'number' && order.answered(ticket);
  };
  const isLookup = (f: Frame) => f.opcode === OPCODE.lookupBinary || f.opcode === OPCODE.lookup;
  let lookups = 0;
  let passes = false;
  let held = 0;
  const moves = frames.map(movable);
  frames.forEach((f, i) => {
    if (moves[i]) held++;
    else if (isLookup(f)) {
      lookups++;
      if (held > 0) passes = true;
    } else held = 0;
  });
  if (!passes || !order.hasRoom(lookups)) return frames;
  const out: Frame[] = [];
  const waiting: Frame[] = [];
  frames.forEach((f, i) => {
    if (moves[i]) waiting.push(f);
    else {
      if (!isLookup(f)) out.push(...waiting.splice(0));
      out.push(f);
    }
  });
  out.push(...waiting);
  return out;
}

export function serveConnection(socket: Socket, ctx: ConnectionContext, peer: { pid: number; uid: number } | null = null): Promise<void> {
  const decoder = new FrameDecoder(ctx.maxPayload);
  // The namespace of this connection's last binary lookup (an engine asks about one at every step).
  const namespaces = new NamespaceMemo();
  // And the chain of its last one (the same request asked about again at the next step).
  const chains = new ChainMemo();
  const shape = checks(ctx.maxBlocks);
  let session: Session | null = null;
  let closing = false;
  // Pending lookups that gave their in-flight slot back (each ticket's keys are bounded by maxBlocks).
  let detached = 0;
  let operator = false;
  // Whether this socket reads into the Manager's shared read buffer (logged with the session).
  let readsShared = false;
  const sendBytes = (opcode: number, requestId: number, payload: Buffer) => {
    if (!socket.destroyed) socket.write(encodeFrame(opcode, requestId, payload));
  };
  // Header and JSON encoded into one buffer: one allocation and one write per reply.
  const send = (opcode: number, requestId: number, body: unknown) => {
    if (!socket.destroyed) socket.write(encodeTextFrame(opcode, requestId, JSON.stringify(body)));
  };
  // Replies the client has not read yet: past this bound the socket stops being read (the
  // client's requests back up in the kernel) until the replies drain.
  const maxUnsent = 4 * (ctx.maxPayload + HEADER_BYTES);
  // The payload's own bytes (it parsed, within the nesting bound): never re-serialised.
  const echo = (frame: Frame) => sendBytes(OPCODE.echoed, frame.requestId, frame.payload.length > 0 ? frame.payload : jsonPayload({}));
  const fail = (requestId: number, error: ReturnType<typeof coded> & Record<string, unknown>) => send(OPCODE.error, requestId, error);
  const close = (reason: string) => {
    if (closing) return;
    closing = true;
    ctx.metrics.connectionsRefused.inc({ reason });
    socket.end();
    socket.destroySoon?.();
  };

  const jsonResult: LookupResult = (requestId, r, grants, ahead) => {
    const grant = grants === null ? null : ahead ? grants.grantAhead(r.ticket) : grants.grant(r.ticket);
    send(OPCODE.lookupResult, requestId, grant !== null ? { ...r, grant } : r);
  };
  // The reply struct straight after the header: one allocation, a few integer writes, the grant's
  // bytes copied in (no call into Node's C++ before the write).
  const binaryResult: LookupResult = (requestId, r, grants, ahead) => {
    if (socket.destroyed) return;
    const out = Buffer.allocUnsafe(HEADER_BYTES + LOOKUP_REPLY_BYTES);
    writeFrameHeader(out, OPCODE.lookupBinaryResult, requestId, LOOKUP_REPLY_BYTES);
    const granted = grants !== null && grants.writeGrant(r.ticket, out, HEADER_BYTES + LOOKUP_REPLY_GRANT_AT, ahead);
    writeLookupReply(out, HEADER_BYTES, r, granted || undefined);
    socket.write(out);
  };

  /** Writes a lookup's answer; a ready ticket carries a grant (another session of this uid may restore it with it). */
  const answerLookup = (s: Session, requestId: number, r: LookupReply, result: LookupResult) => result(requestId, r, r.state === 'ready' ? s.tickets : null, false);

  /**
   * A lookup in either encoding: answered through `result` (JSON or binary), a pending one named
   * first. A ticket that settles as it opens is answered in this turn, before the service's
   * bookkeeping of it (see CacheService.lookup): the reply's write is the first thing done once
   * the probe has decided it.
   */
  const serveLookup = (s: Session, requestId: number, asked: LookupRequest, result: LookupResult, detach: () => void): void | Promise<void> => {
    s.tickets.lastAdded = null;
    const answer = ctx.service.lookup(s, asked, (r) => result(requestId, r, r.state === 'ready' ? s.tickets : null, true));
    if (answer === null) return;
    if (!(answer instanceof Promise)) return answerLookup(s, requestId, answer, result);
    return servePending(s, requestId, answer, s.tickets.lastAdded, result, detach);
  };
  const servePending = async (s: Session, requestId: number, answer: Promise<LookupReply>, ticket: number | null, result: LookupResult, detach: () => void): Promise<void> => {
    const PENDING = Symbol('pending');
    const answerWith = (r: LookupReply) => answerLookup(s, requestId, r, result);
    const first = await Promise.race([answer, Promise.resolve(PENDING)]);
    if (first !== PENDING) return answerWith(first);
    if (ticket !== null) send(OPCODE.lookupPending, requestId, { ticket, state: 'pending' });
    // Past MAX_DETACHED pending lookups they keep their slots, and the in-flight bound holds again.
    if (detached >= MAX_DETACHED) return answerWith(await answer);
    detached++;
    detach();
    try {
      return answerWith(await answer);
    } finally {
      detached--;
    }
  };

  const check = <T>(result: T | string): T => {
    if (typeof result === 'string') throw new RequestError('bad-request', result);
    return result;
  };
  /** A refusal the client can act on is answered ERROR; anything else is a defect (rethrown). */
  const refuse = (frame: Frame, error: unknown): void => {
    if (!(error instanceof RequestError)) throw error;
    const name = OPCODE_NAMES.get(frame.opcode) ?? `opcode ${frame.opcode}`;
    fail(frame.requestId, error.reason === 'bad-request' ? coded('badRequest', name, error.message) : { ...coded('requestRefused', error.reason, error.message), reason: error.reason });
  };

  /**
   * Serves one frame: at once, with no promise, when it can be (a binary lookup whose ticket
   * settled while it opened, a binary release, most small requests), else with a promise of it
   * (a save, a restore, a pending lookup). A lookup is two frames an engine sends thousands of
   * times a second: neither pays for an async function, its promise and a microtask hop.
   * `detach` gives the request's in-flight slot back early (a lookup once its ticket is open:
   * the service bounds tickets).
   */
  const handle = (frame: Frame, detach: () => void): void | Promise<void> => {
    try {
      const served = dispatch(frame, detach);
      return served instanceof Promise ? served.catch((error: unknown) => refuse(frame, error)) : served;
    } catch (error) {
      return refuse(frame, error);
    }
  };

  const dispatch = (frame: Frame, detach: () => void): void | Promise<void> => {
    const name = OPCODE_NAMES.get(frame.opcode) ?? `opcode ${frame.opcode}`;
    // A binary lookup's or release's payload is not JSON: it is decoded where it is served.
    const binary = frame.opcode === OPCODE.lookupBinary || frame.opcode === OPCODE.releaseBinary;
    let body: unknown = null;
    if (!binary) {
      const parsed = parsePayload(frame.payload);
      if ('problem' in parsed) return fail(frame.requestId, coded('badRequest', name, parsed.problem));
      body = parsed.value;
    }
    if (session === null && !operator) {
      if (frame.opcode === OPCODE.operator) {
        if (frame.version !== PROTOCOL_VERSION) {
          send(OPCODE.refused, frame.requestId, coded('protocolMismatch', frame.version, PROTOCOL_VERSION));
          return close('protocol-mismatch');
        }
        operator = true;
        return send(OPCODE.welcome, frame.requestId, { operator: true, protocol: PROTOCOL_VERSION });
      }
      if (frame.opcode !== OPCODE.hello) {
        send(OPCODE.refused, frame.requestId, coded('handshakeFirst', name));
        return close('handshake-first');
      }
      const hello = shape.hello(body);
      if (typeof hello === 'string') {
        send(OPCODE.refused, frame.requestId, coded('badRequest', name, hello));
        return close('bad-hello');
      }
      const outcome = decideHandshake(hello, frame.version, PROTOCOL_VERSION, ctx.checks);
      if (!outcome.accepted) {
        const error =
          outcome.reason === 'protocol-mismatch' ? coded('protocolMismatch', outcome.clientVersion, outcome.serverVersion)
          : outcome.reason === 'malformed-profile' ? coded('malformedProfile', outcome.problem)
          : { ...coded('rejectedProfile', outcome.messages.join(' | ')), rejections: outcome.verdict.rejections.map((r) => r.id), pin: outcome.verdict.pin };
        ctx.logger.warn('handshake-refused', { reason: outcome.reason, code: error.code, client: hello.client ?? null });
        if (outcome.reason === 'rejected-profile') ctx.service.recordRefusal(hello.client ?? 'anonymous', 'profile-rejected', outcome.verdict.rejections.map((r) => r.id).join(',') || 'pin');
        send(OPCODE.refused, frame.requestId, { ...error, reason: outcome.reason, serverVersion: PROTOCOL_VERSION });
        return close(outcome.reason);
      }
      session = new Session(ctx.nextSession(), hello.client ?? 'anonymous', outcome.profile, peer);
      ctx.sessions.add(session);
      ctx.logger.info('session-open', { session: session.id, pid: peer?.pid ?? null, client: session.client, engine: outcome.profile.engine, version: outcome.profile.version, readBuffer: readsShared ? 'shared' : 'per-read' });
      return send(OPCODE.welcome, frame.requestId, { session: session.id, protocol: PROTOCOL_VERSION, blockBytes: ctx.service.cache.blockBytes, maxPayload: ctx.maxPayload, maxBlocks: ctx.maxBlocks, fd: { socket: ctx.fdSocket, token: session.fdToken } });
    }
    if (operator) {
      if (frame.opcode === OPCODE.status) return send(OPCODE.statusResult, frame.requestId, ctx.status());
      if (frame.opcode === OPCODE.echo) return echo(frame);
      if (frame.opcode === OPCODE.requests) {
        const q = shape.requests(body);
        return typeof q === 'string' ? fail(frame.requestId, coded('badRequest', name, q)) : send(OPCODE.requestsResult, frame.requestId, { records: ctx.service.records.list(q) });
      }
      return fail(frame.requestId, coded('handshakeFirst', name));
    }
    const s = session!;
    switch (frame.opcode) {
      case OPCODE.echo: return echo(frame);
      case OPCODE.lookup: return serveLookup(s, frame.requestId, check(shape.lookup(body)), jsonResult, detach);
      case OPCODE.lookupBinary: {
        const asked = decodeLookupRequest(frame.payload, ctx.maxBlocks, namespaces, chains);
        if ('problem' in asked) {
          ctx.logger.warn('binary-lookup-malformed', { session: s.id, request: frame.requestId, problem: asked.problem });
          fail(frame.requestId, coded('binaryLookupMalformed', asked.problem));
          return close('binary-lookup-malformed');
        }
        return serveLookup(s, frame.requestId, asked, binaryResult, detach);
      }
      case OPCODE.save: return ctx.service.save(s, check(shape.save(body))).then((r) => send(OPCODE.saveResult, frame.requestId, r));
      case OPCODE.restore: {
        const asked = check(shape.restore(body));
        // With a grant, the ticket is another session's (same uid): its leases, these pages.
        let owner = s;
        if (asked.grant !== undefined) {
          const found = [...ctx.sessions].find((x) => x.tickets.admits(asked.ticket, asked.grant!));
          if (!found) throw new RequestError('unknown-grant', `no open ticket ${asked.ticket} with that grant`);
          owner = found;
        }
        // The restore's cancel is filed under its ticket, so CANCEL of that ticket aborts it
        // (the service adds it before its first await: expecting ends when the call returns).
        s.cancels.expect(asked.ticket);
        let restoring: Promise<unknown>;
        try {
          restoring = ctx.service.restore(s, asked, owner);
        } finally {
          s.cancels.expect(null);
        }
        return restoring.then((r) => send(OPCODE.restoreResult, frame.requestId, r));
      }
      case OPCODE.releaseBinary: {
        const ticket = decodeReleaseRequest(frame.payload);
        if (typeof ticket !== 'number') {
          ctx.logger.warn('binary-release-malformed', { session: s.id, request: frame.requestId, problem: ticket.problem });
          fail(frame.requestId, coded('binaryReleaseMalformed', ticket.problem));
          return close('binary-release-malformed');
        }
        // Carried out, it is not answered (the client never waits for it); refused, the catch below answers ERROR.
        ctx.service.release(s, ticket, false);
        return;
      }
      case OPCODE.release: {
        const { ticket } = check(shape.ticket(body));
        // Answered with the state the actor took it to (on the ticket worker, once it has reported).
        const state = ctx.service.release(s, ticket);
        if (state instanceof Promise) return state.then((st) => send(OPCODE.released, frame.requestId, { ticket, state: st }));
        return send(OPCODE.released, frame.requestId, { ticket, state });
      }
      case OPCODE.cancel: {
        const { ticket } = check(shape.ticket(body));
        // A ticket a restore consumes: the restore is cancelled (it drains, then answers cancelled).
        const restoring = s.cancels.forTicket(ticket);
        if (restoring) {
          restoring();
          return send(OPCODE.cancelled, frame.requestId, { ticket, state: 'restoring' });
        }
        const state = ctx.service.cancel(s, ticket);
        if (state instanceof Promise) return state.then((st) => send(OPCODE.cancelled, frame.requestId, { ticket, state: st }));
        return send(OPCODE.cancelled, frame.requestId, { ticket, state });
      }
      case OPCODE.status: return send(OPCODE.statusResult, frame.requestId, ctx.status());
      case OPCODE.requests: {
        const q = check(shape.requests(body));
        return send(OPCODE.requestsResult, frame.requestId, { records: ctx.service.records.list(q) });
      }
      case OPCODE.registerPages: {
        const spec = check(shape.registerPages(body));
        if (s.pages) throw new RequestError('pages-registered', 'this session already registered its pages');
        const opened = PageFile.open(s.takeOffered(), spec, ctx.service.cache.blockBytes);
        if ('problem' in opened) {
          ctx.logger.warn('pages-refused', { session: s.id, problem: opened.problem, detail: opened.detail });
          return fail(frame.requestId, coded('pagesRefused', opened.problem, opened.detail));
        }
        s.pages = opened;
        // Answered at once; the mapping is populated in the background (see PageFile.ready).
        const started = performance.now();
        const session = s;
        void opened.ready.then((populated) => {
          if (!session.closed) ctx.logger.info('pages-populated', { session: session.id, populated, bytes: registrationBytes(spec), ms: Math.round(performance.now() - started) });
        });
        return send(OPCODE.pagesRegistered, frame.requestId, { pages: spec.pages });
      }
      default: return fail(frame.requestId, coded('unknownOpcode', frame.opcode));
    }
  };

  const releaseOrder: ReleaseOrder = {
    hasRoom: (tickets) => ctx.service.hasRoom(tickets),
    answered: (ticket) => session !== null && ctx.service.answered(session, ticket),
  };

  return new Promise<void>((resolve) => {
    // The handshake is decided before any later frame is looked at.
    let chain: Promise<void> = Promise.resolve();
    // Requests in flight on this connection: past the bound the socket stops being read (the
    // client's writes back up in the kernel), so a pipelining client cannot grow our memory.
    let inFlight = 0;
    // Frames decoded but not started: at most one read's worth, since reading stops at the bound.
    const waiting: Frame[] = [];
    // Reads resume only when no frame waits and the client has read its replies.
    const flow = () => {
      if (closing) return;
      if (waiting.length > 0 || socket.writableLength > maxUnsent) socket.pause();
      else if (socket.isPaused()) socket.resume();
    };
    // A frame starts only while the client has read its replies: frames already read (up to one
    // read's worth) wait past the bound, so a client that sends small requests with large replies
    // (REQUESTS) and reads none holds at most the bound plus one reply, not one per frame.
    const mayStart = () => inFlight < ctx.maxInFlight && socket.writableLength <= maxUnsent;
    // Not re-entered: a frame served at once gives its slot back inside `start`, and the loop
    // that started it goes on (a read's worth of frames served one inside another's return
    // would nest as deep as the read is long).
    let pumping = false;
    const pump = () => {
      if (pumping) return;
      pumping = true;
      try {
        while (!closing && waiting.length > 0 && mayStart()) start(waiting.shift()!);
      } finally {
        pumping = false;
      }
      flow();
    };
    socket.on('drain', pump);
    const start = (f: Frame) => {
      inFlight++;
      let slot = true;
      const detach = () => {
        if (!slot) return;
        slot = false;
        inFlight--;
        pump();
      };
      // Served at once, the slot is given back at once; served later, when its promise settles.
      const run = (): void | Promise<void> => {
        let served: void | Promise<void>;
        try {
          served = closing ? undefined : handle(f, detach);
        } catch (error) {
          failed(f, error);
          return detach();
        }
        if (!(served instanceof Promise)) return detach();
        return served.then(detach, (error: unknown) => {
          failed(f, error);
          detach();
        });
      };
      // Requests after the handshake run concurrently (a pending lookup must not block a save),
      // and at once: a read comes after the microtasks of the last one, so the handshake's
      // chain has run by then (no promise hop before a lookup is served).
      if (session === null && !operator) chain = chain.then(run);
      else void run();
    };
    // A defect met serving one request costs this connection, never the Manager.
    const failed = (f: Frame, error: unknown) => {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      ctx.logger.error('request-failed', { session: session?.id ?? null, opcode: f.opcode, request: f.requestId, detail, stack: error instanceof Error ? (error.stack ?? null) : null });
      // The error reply may meet the same defect (a reply that cannot be written): nothing escapes.
      try {
        fail(f.requestId, coded('requestFailed', OPCODE_NAMES.get(f.opcode) ?? `opcode ${f.opcode}`, detail));
      } catch (again) {
        ctx.logger.error('request-failed-reply', { session: session?.id ?? null, request: f.requestId, detail: again instanceof Error ? again.message : String(again) });
      }
      close('request-failed');
    };
    const onChunk = (chunk: Buffer) => {
      ctx.busyPoll?.touch();
      if (closing) return;
      const { frames, fault } = decoder.push(chunk);
      for (const f of frames.length > 1 && session !== null ? releasesLast(frames, releaseOrder) : frames) {
        // In order: once one frame waits, the ones after it wait behind it.
        if (waiting.length === 0 && mayStart()) start(f);
        else waiting.push(f);
      }
      flow();
      if (fault) {
        const detail = fault.kind === 'oversize' ? `length ${fault.length} > ${fault.limit}` : fault.kind === 'truncated' ? `${fault.have}/${fault.need}` : fault.kind === 'bad-request-id' ? `high word 0x${fault.found.toString(16)} > 0x1fffff (ids up to 2^53 - 1)` : `0x${fault.found.toString(16)}`;
        ctx.logger.warn('frame-fault', { session: session?.id ?? null, kind: fault.kind, detail });
        void chain.then(() => {
          fail(0, coded('frameFault', fault.kind, detail));
          close(fault.kind);
        });
      }
    };
    // Read into the Manager's one read buffer where this Node allows it (see read-buffer.ts),
    // else chunk by chunk as 'data'; the socket was accepted paused, so no read came before.
    readsShared = adoptReadBuffer(socket, onChunk);
    if (!readsShared) socket.on('data', onChunk);
    socket.resume();
    socket.on('end', () => {
      const fault = decoder.end();
      if (fault && !closing) {
        ctx.logger.warn('frame-fault', { session: session?.id ?? null, kind: fault.kind });
        ctx.metrics.connectionsRefused.inc({ reason: fault.kind });
      }
      socket.end();
    });
    socket.on('error', () => undefined);
    // A connection that never says HELLO would hold its socket for good: it gets a deadline.
    const handshake = setTimeout(() => {
      if (session !== null || operator || closing) return;
      ctx.logger.warn('handshake-timeout', { afterMs: ctx.handshakeMs, pid: peer?.pid ?? null });
      fail(0, coded('handshakeTimeout', ctx.handshakeMs));
      close('handshake-timeout');
    }, ctx.handshakeMs);
    handshake.unref();
    socket.on('close', () => {
      clearTimeout(handshake);
      const s = session;
      if (!s) return resolve();
      void s.close().then(() => {
        ctx.sessions.delete(s);
        ctx.logger.info('session-closed', { session: s.id });
        resolve();
      });
    });
  });
}
