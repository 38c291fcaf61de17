/**
 * A TypeScript client of the Manager protocol: the CLI's `manager status` and `requests` and
 * the specs use it. One connection, requests matched to replies by request id.
 */
import { connect, type Socket } from 'node:net';
import { FrameDecoder, OPCODE, PROTOCOL_VERSION, encodeFrame, jsonPayload, type Frame } from '../protocol/index.js';

export interface Reply {
  opcode: number;
  body: Record<string, unknown>;
}

export class ManagerClient {
  private readonly decoder = new FrameDecoder(16 * 1024 * 1024);
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  private closedWith: Error | null = null;
  /** Frames that answered no request (id 0: frame faults). */
  readonly unsolicited: Reply[] = [];

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
  hello(profile: unknown, options: { protocol?: number; frameVersion?: number; client?: string } = {}): Promise<Reply> {
    return this.request(OPCODE.hello, { protocol: options.protocol ?? PROTOCOL_VERSION, profile, client: options.client ?? 'orbitkv-cli' }, options.frameVersion);
  }

  request(opcode: number, body: unknown, version = PROTOCOL_VERSION): Promise<Reply> {
    const id = this.nextId++;
    if (this.closedWith) return Promise.resolve({ opcode: -1, body: { closed: true } });
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.write(encodeFrame(opcode, id, jsonPayload(body), version));
    });
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
    const body = f.payload.length ? (JSON.parse(f.payload.toString('utf8')) as Record<string, unknown>) : {};
    const w = this.waiting.get(f.requestId);
    if (!w) {
      this.unsolicited.push({ opcode: f.opcode, body });
      return;
    }
    this.waiting.delete(f.requestId);
    w({ opcode: f.opcode, body });
  }
}

export { OPCODE };
