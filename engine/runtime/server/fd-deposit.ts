/**
 * The fd socket (`<socket>.fd`, 0600 beside the Manager's socket): where an engine deposits the
 * memfd of its pages over SCM_RIGHTS, since the protocol stream is read by Node, which drops
 * ancillary data. One native FdChannel per connection, one message each way: the engine sends
 * `{session, token}` (the token came in its WELCOME) with exactly one fd; the Manager holds the
 * fd in that session until REGISTER_PAGES on the protocol stream claims it, and answers
 * `{ok: true}` or a coded refusal. The peer's uid is checked by the channel (SO_PEERCRED).
 * Bounded: at most MAX_OPEN deposit connections at once, each closed after DEPOSIT_MS.
 */
import { closeSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { FdChannel, PeerRefusedError } from '../../../native/index.js';
import { diagnose, type ArgsOf, type CatalogueKey } from '../../diagnostics/index.js';
import type { Logger } from '../log/index.js';
import type { RuntimeMetrics } from '../metrics/index.js';
import type { Session } from '../session/index.js';

const MAX_OPEN = 64;
const DEPOSIT_MS = 5_000;
const MAX_MESSAGE = 4096;

const coded = <K extends CatalogueKey>(key: K, ...args: ArgsOf<K>) => {
  const d = diagnose(key, {}, ...args);
  return { code: d.code, message: d.message, ...(d.hint ? { hint: d.hint } : {}) };
};

const closeAll = (fds: number[]) => {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
};

export function serveFdDeposits(sessions: Set<Session>, logger: Logger, metrics: RuntimeMetrics): Server {
  let open = 0;
  return createServer({ pauseOnConnect: true }, (socket) => {
    if (open >= MAX_OPEN) {
      metrics.connectionsRefused.inc({ reason: 'fd-deposits-busy' });
      socket.destroy();
      return;
    }
    let channel: FdChannel;
    try {
      channel = FdChannel.adopt(socket, { maxMessageBytes: MAX_MESSAGE, maxQueuedBytes: 64 * 1024 });
    } catch (error) {
      const e = error as PeerRefusedError;
      logger.warn('peer-refused', { socket: 'fd', uid: error instanceof PeerRefusedError ? e.uid : null, pid: error instanceof PeerRefusedError ? e.pid : null, detail: (error as Error).message });
      metrics.connectionsRefused.inc({ reason: 'peer-uid' });
      socket.destroy();
      return;
    }
    open++;
    const timer = setTimeout(() => channel.close(), DEPOSIT_MS);
    channel.on('close', () => {
      clearTimeout(timer);
      open--;
    });
    channel.on('error', (error) => logger.warn('fd-deposit-fault', { detail: error.message }));
    const answer = (body: unknown) => {
      void channel.send(Buffer.from(JSON.stringify(body), 'utf8')).catch(() => undefined).finally(() => channel.close());
    };
    const refuse = (fds: number[], reason: string, detail: string) => {
      closeAll(fds);
      logger.warn('fd-deposit-refused', { pid: channel.peer.pid, reason, detail });
      metrics.connectionsRefused.inc({ reason: `fd-${reason}` });
      answer({ ...coded('fdDepositRefused', reason, detail), reason });
    };
    channel.once('message', ({ bytes, fds }) => {
      let body: unknown;
      try {
        body = JSON.parse(bytes.toString('utf8'));
      } catch {
        return refuse(fds, 'bad-request', 'the message is not UTF-8 JSON');
      }
      const b = body as { session?: unknown; token?: unknown };
      if (body === null || typeof body !== 'object' || !Number.isSafeInteger(b.session) || typeof b.token !== 'string') return refuse(fds, 'bad-request', 'the message must be {"session": id, "token": "..."}');
      if (fds.length !== 1) return refuse(fds, 'fd-count', `${fds.length} fds came with the message; exactly one (the pages' memfd) is expected`);
      const session = [...sessions].find((s) => s.id === b.session);
      const given = Buffer.from(b.token, 'utf8');
      const wanted = session ? Buffer.from(session.fdToken, 'utf8') : null;
      if (!session || !wanted || given.length !== wanted.length || !timingSafeEqual(given, wanted)) return refuse(fds, 'unknown-session', `no open session ${String(b.session)} with that token`);
      if (!session.offer(fds[0]!)) return refuse(fds, 'session-closed', `session ${session.id} is closing`);
      answer({ ok: true, session: session.id });
    });
  });
}
