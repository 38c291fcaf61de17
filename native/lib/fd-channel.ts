/**
 * FdChannel: messages with file descriptors (SCM_RIGHTS) over a connected Unix stream socket,
 * checked against the peer's credentials (SO_PEERCRED). Node's net.Socket can do neither; the
 * channel takes over the socket's fd (a native dup) and never blocks the event loop: sends and
 * receives are non-blocking and readiness arrives through libuv.
 *
 * Framing: every message is an 8-byte header (payload length, fd count; little endian) and the
 * payload; its fds ride on the header's first byte, so they arrive no later than the header.
 *
 * @example
 * const server = net.createServer({ pauseOnConnect: true }, (socket) => {
 *   const channel = FdChannel.adopt(socket);          // refuses peers of another uid
 *   channel.on('message', ({ bytes, fds }) => { ... });  // the receiver owns (closes) fds
 * });
 */
import { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { binding, type RawPeerCredentials, type RawUnixSocket } from './binding.js';
import { ChannelClosedError, ChannelProtocolError, PeerRefusedError, SystemCallError } from './errors.js';
import { track } from './native-finalizers.js';

export type PeerCredentials = RawPeerCredentials;

export interface ChannelOptions {
  /** Peer uids accepted (default: this process's uid only). */
  allowedUids?: readonly number[];
  /** Largest payload either way (default 1 MiB). */
  maxMessageBytes?: number;
  /** Most bytes waiting to be sent before send() refuses with ENOBUFS (default 8 MiB). */
  maxQueuedBytes?: number;
}

export interface ChannelMessage {
  bytes: Buffer;
  /** Open fds, close-on-exec, now owned by the receiver. */
  fds: number[];
}

/** Most fds one message carries (the kernel's SCM_MAX_FD). */
export const MAX_FDS_PER_MESSAGE = 253;
/** Largest fd number (a C int): the binding refuses more, and a refusal there fails the channel. */
const MAX_FD = 2 ** 31 - 1;
/**
 * What sendmsg says when it refuses one of a message's fds (closed, or the receiver's queue of
 * in-flight fds is full): nothing of that message left, so only it fails.
 */
const REFUSED_FD = new Set(['EBADF', 'ETOOMANYREFS']);
const HEADER = 8;
const READS_PER_WAKEUP = 32;

/**
 * Channels with messages still to send: held here so a channel the program let go of still
 * delivers what it was asked to send (the GC backstop closes it only once it is idle).
 */
const sending = new Set<FdChannel>();

/**
 * Channels with a 'message' or 'close' listener: held here, as Node holds a socket it reads, so a
 * channel someone waits on is never collected under them. The listener's closure is often the
 * only path back to the channel (an async function awaiting its answer holds the channel, and
 * only the listener holds that function), so without this the collector could close a channel
 * while its owner awaits the reply, which then never comes.
 */
const listened = new Set<FdChannel>();
const WAITED_ON = new Set<string | symbol>(['message', 'close']);

interface Outgoing {
  frame: Buffer;
  fds: number[];
  sent: number;
  resolve(): void;
  reject(error: Error): void;
}

/** The peer credentials of a connected Unix socket's fd (SO_PEERCRED: who connected). */
export function peerCredentials(fd: number): PeerCredentials {
  try {
    return binding().peerCredentials(fd);
  } catch (error) {
    throw SystemCallError.from(error);
  }
}

export interface FdChannel {
  on(event: 'message', listener: (message: ChannelMessage) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'close', listener: () => void): this;
}

export class FdChannel extends EventEmitter {
  readonly peer: PeerCredentials;
  readonly maxMessageBytes: number;
  readonly maxQueuedBytes: number;

  private native: RawUnixSocket | null;
  private readonly readBuffer = Buffer.allocUnsafe(64 * 1024);
  private readonly fdsOut = new Int32Array(MAX_FDS_PER_MESSAGE);
  /** Received fds not yet claimed by a header; bounded by one message's worth per header in flight. */
  private readonly fdQueue: number[] = [];
  private pending: Buffer = Buffer.alloc(0);
  private readonly outgoing: Outgoing[] = [];
  private queuedBytes = 0;
  /** Closes the native socket and unclaimed fds once: close() calls it, else the collector. */
  private readonly release: () => void;

  /**
   * Takes over a connected net.Socket (create servers with `pauseOnConnect: true` and adopt in
   * the connection handler, before Node reads a byte). The socket is destroyed; the channel
   * owns a dup of its fd. Throws PeerRefusedError for a peer whose uid is not allowed.
   */
  static adopt(socket: Socket, options: ChannelOptions = {}): FdChannel {
    const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) throw new TypeError('adopt: not a connected Unix socket (no fd)');
    if (socket.bytesRead > 0 || socket.readableLength > 0) throw new ChannelProtocolError('adopt: Node already read bytes from this socket; adopt it before reading (pauseOnConnect: true)');
    try {
      return FdChannel.fromFd(fd, options);
    } finally {
      socket.destroy();
    }
  }

  /** Connects to a listening Unix socket path and adopts the connection. */
  static connect(path: string, options: ChannelOptions = {}): Promise<FdChannel> {
    return new Promise((resolve, reject) => {
      const socket = connect({ path });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        try {
          resolve(FdChannel.adopt(socket, options));
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** A channel over a dup of `fd` (a connected AF_UNIX stream socket); the caller keeps `fd`. */
  static fromFd(fd: number, options: ChannelOptions = {}): FdChannel {
    return new FdChannel(fd, options);
  }

  private constructor(fd: number, options: ChannelOptions) {
    super();
    this.maxMessageBytes = options.maxMessageBytes ?? 1 << 20;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 8 << 20;
    const allowed = options.allowedUids ?? [process.getuid?.() ?? 0];
    let native: RawUnixSocket;
    try {
      native = FdChannel.openNative(fd, new WeakRef(this));
    } catch (error) {
      throw SystemCallError.from(error);
    }
    try {
      this.peer = native.peer();
    } catch (error) {
      native.close();
      throw SystemCallError.from(error);
    }
    if (!allowed.includes(this.peer.uid)) {
      native.close();
      throw new PeerRefusedError(this.peer.pid, this.peer.uid, allowed);
    }
    this.native = native;
    // Explicit close() stays the rule; a channel nobody references and nobody listens to is
    // closed when collected.
    this.release = track(this, this, FdChannel.releaseOf(native, this.fdQueue));
    super.on('newListener', (event: string | symbol) => {
      if (WAITED_ON.has(event) && this.native) listened.add(this);
    });
    super.on('removeListener', (event: string | symbol) => {
      if (WAITED_ON.has(event) && this.listenerCount('message') + this.listenerCount('close') === 0) listened.delete(this);
    });
    native.watch(true, false);
  }

  /**
   * The native socket, reporting readiness to the channel through a WeakRef: the callback is a
   * GC root (the addon holds it), so it must not keep an unreferenced channel alive. Made in its
   * own scope so the closure captures only `weak` and the socket.
   */
  private static openNative(fd: number, weak: WeakRef<FdChannel>): RawUnixSocket {
    const native: RawUnixSocket = new (binding().UnixSocket)(fd, (readable, writable, error) => {
      const channel = weak.deref();
      if (channel) channel.onReady(readable, writable, error);
      else native.watch(false, false);  // collected, its finalizer not run yet: stop the poll
    });
    return native;
  }

  /** The release the finalizer holds: it must not reach the channel (see native-finalizers). */
  private static releaseOf(native: RawUnixSocket, fdQueue: number[]): () => void {
    return () => {
      native.close();
      for (const fd of fdQueue.splice(0)) closeQuietly(fd);
    };
  }

  get closed(): boolean {
    return this.native === null;
  }

  /**
   * Sends one message with `fds` (which stay open here: close them when the promise settles, or
   * at once, since the kernel holds its own references after the first send). Resolves when the
   * kernel has taken every byte; rejects with ENOBUFS past `maxQueuedBytes`.
   */
  send(bytes: Uint8Array, fds: readonly number[] = []): Promise<void> {
    if (!this.native) return Promise.reject(new ChannelClosedError('send'));
    if (!(bytes instanceof Uint8Array)) return Promise.reject(new TypeError('send: bytes must be a Uint8Array'));
    if (bytes.byteLength > this.maxMessageBytes) return Promise.reject(new RangeError(`send: ${bytes.byteLength} bytes is more than maxMessageBytes (${this.maxMessageBytes})`));
    if (fds.length > MAX_FDS_PER_MESSAGE || !fds.every((fd) => Number.isInteger(fd) && fd >= 0 && fd <= MAX_FD))
      return Promise.reject(new RangeError(`send: 0..${MAX_FDS_PER_MESSAGE} fds, each an integer in 0..2^31-1`));
    const frame = Buffer.allocUnsafe(HEADER + bytes.byteLength);
    frame.writeUInt32LE(bytes.byteLength, 0);
    frame.writeUInt32LE(fds.length, 4);
    frame.set(bytes, HEADER);
    if (this.queuedBytes + frame.length > this.maxQueuedBytes)
      return Promise.reject(Object.assign(new Error(`send: ${this.queuedBytes} bytes already wait to be sent (maxQueuedBytes ${this.maxQueuedBytes})`), { code: 'ENOBUFS' }));
    return new Promise<void>((resolve, reject) => {
      this.outgoing.push({ frame, fds: [...fds], sent: 0, resolve, reject });
      this.queuedBytes += frame.length;
      sending.add(this);
      this.flush();
    });
  }

  /** Closes the channel: unsent messages reject, unclaimed received fds are closed. Idempotent. */
  close(): void {
    const native = this.native;
    if (!native) return;
    this.native = null;
    this.release();
    sending.delete(this);
    for (const out of this.outgoing.splice(0)) out.reject(new ChannelClosedError('send'));
    this.queuedBytes = 0;
    this.pending = Buffer.alloc(0);
    this.emit('close');
    listened.delete(this);
  }

  private onReady(readable: boolean, writable: boolean, error: string | null): void {
    if (error) return this.fail(new SystemCallError(error, 'uv_poll', `fd channel: ${error}`));
    if (writable) this.flush();
    if (readable) this.receive();
  }

  private flush(): void {
    const native = this.native;
    if (!native) return;
    while (this.outgoing.length > 0) {
      const out = this.outgoing[0]!;
      let n: number;
      try {
        n = native.send(out.frame.subarray(out.sent), out.sent === 0 ? out.fds : []);
      } catch (error) {
        // The message whose send failed rejects with why, not with the channel's close.
        const failure = SystemCallError.from(error) as Error;
        this.outgoing.shift();
        this.queuedBytes -= out.frame.length - out.sent;
        out.reject(failure);
        // Refused for one of its fds before a byte of it left: the stream is still in step.
        if (out.sent === 0 && REFUSED_FD.has((failure as { code?: string }).code ?? '')) continue;
        return this.fail(failure);
      }
      if (n < 0) break;
      out.sent += n;
      this.queuedBytes -= n;
      if (out.sent < out.frame.length) continue;
      this.outgoing.shift();
      out.resolve();
    }
    try {
      native.watch(true, this.outgoing.length > 0);
    } catch (error) {
      return this.fail(SystemCallError.from(error) as Error);
    }
    if (this.outgoing.length === 0) sending.delete(this);
  }

  private receive(): void {
    for (let i = 0; i < READS_PER_WAKEUP && this.native; i++) {
      let n: number;
      let count: number;
      try {
        [n, count] = this.native.recv(this.readBuffer, this.fdsOut);
      } catch (error) {
        return this.fail(SystemCallError.from(error) as Error);
      }
      if (n < 0) return;
      for (let j = 0; j < count; j++) this.fdQueue.push(this.fdsOut[j]!);
      if (n === 0) {
        if (this.pending.length > 0) return this.fail(new ChannelProtocolError(`the peer closed mid-message (${this.pending.length} bytes of it arrived)`));
        return this.close();
      }
      this.pending = this.pending.length === 0 ? Buffer.from(this.readBuffer.subarray(0, n)) : Buffer.concat([this.pending, this.readBuffer.subarray(0, n)]);
      if (!this.deliver()) return;
    }
  }

  /** Emits every complete message in `pending`; false when the channel failed. */
  private deliver(): boolean {
    let at = 0;
    while (this.native && this.pending.length - at >= HEADER) {
      const length = this.pending.readUInt32LE(at);
      const fdCount = this.pending.readUInt32LE(at + 4);
      if (length > this.maxMessageBytes) return this.fail(new ChannelProtocolError(`a ${length}-byte message is more than maxMessageBytes (${this.maxMessageBytes})`)), false;
      if (fdCount > MAX_FDS_PER_MESSAGE || fdCount > this.fdQueue.length)
        return this.fail(new ChannelProtocolError(`a message announces ${fdCount} fds, ${this.fdQueue.length} arrived`)), false;
      if (this.pending.length - at < HEADER + length) break;
      const bytes = Buffer.from(this.pending.subarray(at + HEADER, at + HEADER + length));
      const fds = this.fdQueue.splice(0, fdCount);
      at += HEADER + length;
      if (!this.emit('message', { bytes, fds })) for (const fd of fds) closeQuietly(fd);
    }
    // Fds no header claims yet belong to a message whose header is still to be parsed: at most
    // one message's worth may wait.
    if (this.native && this.fdQueue.length > MAX_FDS_PER_MESSAGE) return this.fail(new ChannelProtocolError(`${this.fdQueue.length} fds arrived without a message`)), false;
    this.pending = at === 0 ? this.pending : Buffer.from(this.pending.subarray(at));
    return this.native !== null;
  }

  private fail(error: Error): void {
    this.close();
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed: nothing left to release
  }
}
