/**
 * A TypeScript client of the Manager protocol: the CLI's `manager status` and `requests` and
 * the specs use it. One connection, requests matched to replies by request id.
 */
import { connect, type Socket } from 'node:net';
import { FdChannel } from '../../../native/index.js';
import { FrameDecoder, OPCODE, PROTOCOL_VERSION, decodeLookupReply, encodeFrame, encodeLookupRequest, encodeReleaseRequest, jsonPayload, type Frame, type LookupRequest } from '../protocol/index.js';

/** How long deposit() waits for the fd socket's answer (the Manager closes it after 5 s). */
export const DEPOSIT_TIMEOUT_MS = 10_000;

export interface Reply {
  opcode: number;
  body: Record<string, unknown>;
}

export class ManagerClient {
  private readonly decoder = new FrameDecoder(16 * 1024 * 1024);
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  private closedWith: Error | null = null;
  /** Frames that answered no request waited for (id 0: frame faults; a binary RELEASE refused). */
  readonly unsolicited: (Reply & { requestId: number })[] = [];
  /** Interim LOOKUP_PENDING notices, by the request id they answer. */
  readonly notices = new Map<number, Record<string, unknown>>();
  /** The WELCOME body once a handshake was accepted. */
  welcome: Record<string, unknown> | null = null;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      const { frames } = this.decoder.push(chunk);
      for (const f of frames) this.deliver(f);
    });
    const closed = (error?: Error) => {
      this.closedWith ??= error ?? Object.assign(new Error('the Manager closed the connection'), { code: 'ECONNRESET' });
      for (const [, w] of this.waiting) w({ opcode: -1, body: { closed: true } });
      this.waiting.clear();
    };
    socket.on('close', () => closed());
    socket.on('error', (e) => closed(e));
  }

  static connect(path: string): Promise<ManagerClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new ManagerClient(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  /** Sends HELLO; resolves to WELCOME or REFUSED. */
  async hello(profile: unknown, options: { protocol?: number; frameVersion?: number; client?: string } = {}): Promise<Reply> {
    const reply = await this.request(OPCODE.hello, { protocol: options.protocol ?? PROTOCOL_VERSION, profile, client: options.client ?? 'cli' }, options.frameVersion);
    if (reply.opcode === OPCODE.welcome) this.welcome = reply.body;
    return reply;
  }

  /**
   * Deposits a memfd on the fd socket the WELCOME named (SCM_RIGHTS); resolves to the Manager's
   * answer on that socket ({ok: true} or a coded refusal). The caller keeps its fd.
   */
  async deposit(fd: number, token?: string, timeoutMs = DEPOSIT_TIMEOUT_MS): Promise<Record<string, unknown>> {
    const fdInfo = this.welcome?.fd as { socket: string; token: string } | undefined;
    if (!fdInfo) throw new Error('deposit: no accepted handshake');
    const channel = await FdChannel.connect(fdInfo.socket);
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = new Promise<Record<string, unknown>>((resolve) => {
        channel.once('message', ({ bytes }) => resolve(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>));
        channel.once('close', () => resolve({ closed: true }));
        // The Manager answers or closes within its own bound; this one covers a Manager that can't.
        timer = setTimeout(() => resolve({ closed: true, timedOut: true, timeoutMs }), timeoutMs);
      });
      await channel.send(Buffer.from(JSON.stringify({ session: this.welcome!.session, token: token ?? fdInfo.token })), [fd]);
      return await answer;
    } finally {
      clearTimeout(timer);
      channel.close();
    }
  }

  /** Deposits a memfd and registers it as pages (REGISTER_PAGES); resolves to that reply. */
  async registerMemfd(fd: number, spec: { pageBytes: number; pages: number; layers: number }): Promise<Reply> {
    const deposited = await this.deposit(fd);
    if (deposited.ok !== true) return { opcode: OPCODE.error, body: deposited };
    return this.request(OPCODE.registerPages, spec);
  }

  request(opcode: number, body: unknown, version = PROTOCOL_VERSION): Promise<Reply> {
    const id = this.nextId++;
    if (this.closedWith) return Promise.resolve({ opcode: -1, body: { closed: true } });
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(encodeFrame(opcode, id, jsonPayload(body), version));
    });
  }

  /**
   * A lookup in the binary layout (LOOKUP_BINARY); its LOOKUP_BINARY_RESULT is delivered with the
   * body a JSON LOOKUP_RESULT has ({ticket, state, boundary, matched, tiers, grant?}).
   */
  lookup(req: LookupRequest): Promise<Reply> {
    return this.requestBytes(OPCODE.lookupBinary, encodeLookupRequest(req));
  }

  /** A request whose payload is these bytes as they are (binary requests; fault specs). */
  requestBytes(opcode: number, payload: Buffer, version = PROTOCOL_VERSION): Promise<Reply> {
    const id = this.nextId++;
    if (this.closedWith) return Promise.resolve({ opcode: -1, body: { closed: true } });
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(encodeFrame(opcode, id, payload, version));
    });
  }

  /**
   * A binary RELEASE, not waited for: one carried out is not answered; a refused one's ERROR
   * lands in `unsolicited` under the returned request id.
   */
  release(ticket: number): number {
    const id = this.nextId++;
    if (!this.closedWith) this.socket.write(encodeFrame(OPCODE.releaseBinary, id, encodeReleaseRequest(ticket)));
    return id;
  }

  /** Writes raw bytes (fault specs). */
  raw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves when the Manager has closed the connection. */
  whenClosed(): Promise<void> {
    if (this.socket.destroyed || this.closedWith) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  close(): Promise<void> {
    const done = this.whenClosed();
    this.socket.end();
    return done;
  }

  private deliver(f: Frame): void {
    const body = f.opcode === OPCODE.lookupBinaryResult ? binaryBody(f.payload) : f.payload.length ? (JSON.parse(f.payload.toString('utf8')) as Record<string, unknown>) : {};
    if (f.opcode === OPCODE.lookupPending) {
      // Bounded by the requests waiting: a notice is dropped once its request is answered.
      if (this.waiting.has(f.requestId)) this.notices.set(f.requestId, body);
      return;
    }
    const w = this.waiting.get(f.requestId);
    if (!w) {
      this.unsolicited.push({ opcode: f.opcode, body, requestId: f.requestId });
      return;
    }
    this.waiting.delete(f.requestId);
    this.notices.delete(f.requestId);
    w({ opcode: f.opcode, body });
  }
}

/** A binary lookup reply as the JSON reply's body; a malformed one is a broken invariant of the Manager. */
function binaryBody(payload: Buffer): Record<string, unknown> {
  const fields = decodeLookupReply(payload);
  if ('problem' in fields) throw new Error(`the Manager sent a malformed LOOKUP_BINARY_RESULT: ${fields.problem}`);
  return { ...fields };
}

export { OPCODE };
