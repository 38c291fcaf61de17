/**
 * FdChannel, peer credentials and shared memory between two real processes: fds travel with
 * SCM_RIGHTS, SO_PEERCRED names the peer and a peer of another uid is refused, and a memfd
 * mapped on both sides shows each side's writes to the other.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFixture } from './fixtures/scratch.js';
import {
  ChannelProtocolError,
  FdChannel,
  PeerRefusedError,
  SystemCallError,
  createMemfd,
  liveMappings,
  mapShared,
  openSharedFile,
  peerCredentials,
  unmapShared,
  type ChannelMessage,
} from '../../native/index.js';

const PEER = fileURLToPath(new URL('./fixtures/fd-peer.ts', import.meta.url));
const openFds = () => readdirSync('/proc/self/fd').length;

function child(args: string[]): { pid: number; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', PEER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  return { pid: proc.pid!, done: new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

/** A listening socket in a fresh folder others may reach (the other-uid peer connects to it). */
async function listen(onSocket: (socket: Socket) => void): Promise<{ server: Server; path: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'orbitkv-chan-'));
  chmodSync(dir, 0o755);
  const path = join(dir, 'manager.sock');
  const server = createServer({ pauseOnConnect: true }, onSocket);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chmodSync(path, 0o777);
  return { server, path, remove: () => (server.close(), rmSync(dir, { recursive: true, force: true })) };
}

/** Both ends of one connection, adopted as channels in this process. */
async function pair(options = {}): Promise<{ a: FdChannel; b: FdChannel; close(): void }> {
  let accept!: (c: FdChannel) => void;
  const accepted = new Promise<FdChannel>((resolve) => (accept = resolve));
  const l = await listen((socket) => accept(FdChannel.adopt(socket, options)));
  const b = await FdChannel.connect(l.path, options);
  const a = await accepted;
  return { a, b, close: () => (a.close(), b.close(), l.remove()) };
}

const nextMessage = (c: FdChannel) => new Promise<ChannelMessage>((resolve) => c.once('message', resolve));

describe('native FdChannel and shared memory', function () {
  this.timeout(30_000);

  it('passes a memfd to another process; both mappings see each other\'s writes; SO_PEERCRED names each side', async () => {
    let got!: (v: { channel: FdChannel; message: ChannelMessage }) => void;
    const received = new Promise<{ channel: FdChannel; message: ChannelMessage }>((resolve) => (got = resolve));
    const l = await listen((socket) => {
      const channel = FdChannel.adopt(socket);
      channel.once('message', (message) => got({ channel, message }));
    });
    const peer = child([l.path, 'share']);
    const { channel, message } = await received;
    assert.equal(channel.peer.pid, peer.pid);
    assert.equal(channel.peer.uid, process.getuid!());
    const { pid, size } = JSON.parse(message.bytes.toString()) as { pid: number; size: number };
    assert.equal(pid, peer.pid);
    assert.equal(message.fds.length, 1);
    const pages = new Uint8Array(mapShared(message.fds[0]!, size, { requireSealed: true }));
    closeSync(message.fds[0]!);
    assert.equal(Buffer.from(pages.subarray(4096, 4096 + 20)).toString(), 'written by the child');
    pages.set(Buffer.from('written by the parent'), 8192);
    await channel.send(Buffer.from('look at 8192'));
    const r = await peer.done;
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { peer: { pid: number; uid: number }; answer: string; seen: string };
    assert.equal(report.peer.pid, process.pid);
    assert.equal(report.answer, 'look at 8192');
    assert.equal(report.seen, 'written by the parent');
    assert.equal(unmapShared(pages.buffer as ArrayBuffer), true);
    channel.close();
    l.remove();
  });

  it('refuses a peer running as another uid, naming it', async () => {
    let refused!: (e: unknown) => void;
    const outcome = new Promise<unknown>((resolve) => (refused = resolve));
    const l = await listen((socket) => {
      try {
        FdChannel.adopt(socket);
        refused(null);
      } catch (error) {
        refused(error);
      }
    });
    const peer = child([l.path, 'other-uid']);
    const error = await outcome;
    assert.ok(error instanceof PeerRefusedError, String(error));
    assert.equal(error.uid, 65534);
    assert.equal(error.pid, peer.pid);
    assert.equal(error.code, 'EPERM');
    const r = await peer.done;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { uid: 65534, seen: 'closed' });
    l.remove();
  });

  it('keeps messages and their fds in order through partial sends of large payloads', async () => {
    const { a, b, close } = await pair({ maxMessageBytes: 4 << 20, maxQueuedBytes: 64 << 20 });
    const before = openFds();
    const got: ChannelMessage[] = [];
    const all = new Promise<void>((resolve) => b.on('message', (m) => (got.push(m), got.length === 12 && resolve())));
    const sends = [];
    for (let i = 0; i < 12; i++) {
      const fd = createMemfd(`m${i}`, 4096 * (i + 1));
      // Every third message is larger than the socket buffer: it goes out in several sends.
      const payload = Buffer.alloc(i % 3 === 0 ? 3 << 20 : 100, i);
      sends.push(a.send(payload, i % 2 === 0 ? [fd] : []).then(() => closeSync(fd)));
    }
    await Promise.all(sends);
    await all;
    got.forEach((m, i) => {
      assert.equal(m.bytes.length, i % 3 === 0 ? 3 << 20 : 100);
      assert.ok(m.bytes.every((x) => x === i));
      assert.equal(m.fds.length, i % 2 === 0 ? 1 : 0);
      // The memfd's size says which message it was sent with.
      for (const fd of m.fds) {
        assert.throws(() => mapShared(fd, 4096 * (i + 2)), { name: 'SystemCallError', code: 'EINVAL' });
        unmapShared(mapShared(fd, 4096 * (i + 1)));
        closeSync(fd);
      }
    });
    assert.equal(openFds(), before);
    close();
  });

  it('bounds what waits to be sent (ENOBUFS) and what a peer may announce (EPROTO)', async () => {
    const { a, b, close } = await pair({ maxMessageBytes: 1 << 20, maxQueuedBytes: 2 << 20 });
    await assert.rejects(a.send(Buffer.alloc(2 << 20)), RangeError);
    const first = a.send(Buffer.alloc(1 << 20));
    const second = a.send(Buffer.alloc(1 << 20));
    await assert.rejects(a.send(Buffer.alloc(1 << 20)), { code: 'ENOBUFS' });
    let n = 0;
    b.on('message', () => n++);
    await Promise.all([first, second]);
    close();

    // A raw peer that announces a 64 MiB message, then one with fds it never sent.
    for (const header of [[64 << 20, 0], [4, 3]] as const) {
      let accept!: (c: FdChannel) => void;
      const accepted = new Promise<FdChannel>((resolve) => (accept = resolve));
      const l = await listen((socket) => accept(FdChannel.adopt(socket)));
      const raw = connect(l.path);
      const channel = await accepted;
      const failed = new Promise<Error>((resolve) => channel.on('error', resolve));
      const frame = Buffer.alloc(12);
      frame.writeUInt32LE(header[0], 0);
      frame.writeUInt32LE(header[1], 4);
      raw.write(frame);
      const error = await failed;
      assert.ok(error instanceof ChannelProtocolError);
      assert.equal(channel.closed, true);
      raw.destroy();
      l.remove();
    }
  });

  it('refuses a send whose fds are out of range or closed, alone: the channel stays open and the next message arrives', async () => {
    const { a, b, close } = await pair();
    const got: Array<[string, number]> = [];
    b.on('message', ({ bytes, fds }) => {
      got.push([bytes.toString(), fds.length]);
      for (const fd of fds) closeSync(fd);
    });
    const live = openSync(PEER, 'r');
    const dead = openSync(PEER, 'r');
    closeSync(dead);
    for (const fds of [[2 ** 31], [2 ** 32 + 5], [-1], [1.5], [NaN]]) await assert.rejects(a.send(Buffer.from('x'), fds), RangeError, String(fds));
    // The kernel refuses a closed fd: that message fails with the errno, and only that one.
    const refused = a.send(Buffer.from('dead'), [live, dead]);
    const after = a.send(Buffer.from('after'), [live]);
    await assert.rejects(refused, (e: unknown) => e instanceof SystemCallError && e.code === 'EBADF' && e.syscall === 'sendmsg');
    await after;
    assert.equal(a.closed, false);
    await a.send(Buffer.from('last'));
    while (got.length < 2) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(got, [['after', 1], ['last', 0]]);
    closeSync(live);
    close();
  });

  it('refuses non-sockets, owner-unsafe files and ranges past the end; unmapping detaches and releases', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orbitkv-shm-'));
    try {
      const plain = openSync(join(dir, 'plain'), 'w');
      assert.throws(() => peerCredentials(plain), (e: unknown) => e instanceof SystemCallError && e.code === 'ENOTSOCK');
      closeSync(plain);
      writeFileSync(join(dir, 'shared'), Buffer.alloc(8192), { mode: 0o644 });
      chmodSync(join(dir, 'shared'), 0o644);
      assert.throws(() => openSharedFile(join(dir, 'shared'), 8192), { name: 'SystemCallError', code: 'EPERM' });
      symlinkSync(join(dir, 'shared'), join(dir, 'link'));
      assert.throws(() => openSharedFile(join(dir, 'link'), 8192), { name: 'SystemCallError', code: 'ELOOP' });
      const fd = openSharedFile(join(dir, 'tier'), 16384, { create: true });
      assert.throws(() => openSharedFile(join(dir, 'tier'), 16384, { create: true }), { code: 'EEXIST' });
      assert.throws(() => mapShared(fd, 20480), { name: 'SystemCallError', code: 'EINVAL' });
      assert.throws(() => mapShared(fd, 4096, { offset: 100 }), RangeError);
      assert.throws(() => mapShared(fd, 4096, { requireSealed: true }), { code: 'EPERM' });
      const live = liveMappings();
      const map = mapShared(fd, 16384);
      closeSync(fd);
      new Uint8Array(map).fill(7);
      assert.equal(liveMappings(), live + 1);
      assert.equal(unmapShared(map), true);
      assert.equal(map.byteLength, 0);
      assert.equal(unmapShared(map), false);
      assert.equal(liveMappings(), live);
      assert.throws(() => unmapShared(new ArrayBuffer(8)), TypeError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('unmaps a mapping nothing references when the collector runs', async () => {
    const r = await runFixture(fileURLToPath(new URL('./fixtures/mapping-gc.ts', import.meta.url)), [], '', ['--expose-gc']);
    assert.equal(r.code, 0, r.stderr);
    const { before, mapped, after } = JSON.parse(r.stdout) as { before: number; mapped: number; after: number };
    assert.equal(mapped, before + 1);
    assert.equal(after, before);
  });

  it('closes a channel nothing references when the collector runs (its peer sees end of stream); a referenced one, or one its listeners wait on, keeps working', async () => {
    const r = await runFixture(fileURLToPath(new URL('./fixtures/fd-channel-gc.ts', import.meta.url)), [], '', ['--expose-gc']);
    assert.equal(r.code, 0, r.stderr);
    const { peerSawEnd, fdsClosed, message, keptClosed, answers } = JSON.parse(r.stdout) as { peerSawEnd: boolean; fdsClosed: number; message: string; keptClosed: boolean; answers: string[] };
    assert.equal(peerSawEnd, true, 'the unreferenced end was closed by its finalizer');
    assert.ok(fdsClosed >= 1, `its fd was closed (${fdsClosed} fewer open fds)`);
    assert.equal(message, 'still here');
    assert.equal(keptClosed, true);
    // Awaited ends reached only through their own listeners (how the soak's fd deposits hung).
    assert.deepEqual(answers, ['answer to q0', 'answer to q1', 'answer to q2', 'answer to q3']);
  });
});
