import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { adoptReadBuffer, READ_BUFFER_BYTES } from '../../engine/runtime/server/read-buffer.js';
import { tempDir } from './support.js';

/** A server on a Unix socket whose accepted sockets are handed to `accept`, paused as the Manager accepts them. */
async function listen(accept: (s: Socket) => void, pauseOnConnect = true): Promise<{ server: Server; path: string }> {
  const path = join(tempDir('read-buffer'), 's.sock');
  const server = createServer({ pauseOnConnect }, accept);
  server.listen(path);
  await once(server, 'listening');
  return { server, path };
}

describe('runtime/server/read-buffer: client sockets read into one reusable buffer', () => {
  it('on this Node an accepted socket is switched: every chunk is a view of one shared buffer, and end still comes', async () => {
    const seen: { bytes: string; buffer: ArrayBufferLike; length: number }[] = [];
    const ends: number[] = [];
    let adopted = 0;
    const { server, path } = await listen((s) => {
      const ok = adoptReadBuffer(s, (chunk) => seen.push({ bytes: chunk.toString(), buffer: chunk.buffer, length: chunk.byteLength }));
      if (ok) adopted++;
      else s.on('data', (chunk: Buffer) => seen.push({ bytes: chunk.toString(), buffer: chunk.buffer, length: chunk.byteLength }));
      s.on('end', () => {
        ends.push(1);
        s.end();
      });
      s.resume();
    });
    try {
      for (const text of ['first client', 'second client']) {
        const c = connect(path);
        await once(c, 'connect');
        c.end(text);
        await once(c, 'close');
      }
      assert.equal(adopted, 2, 'both accepted sockets read into the shared buffer (this Node has the fields)');
      assert.deepEqual(seen.map((x) => x.bytes), ['first client', 'second client']);
      assert.equal(seen[0]!.buffer, seen[1]!.buffer, 'one buffer serves every connection');
      assert.equal(seen[0]!.buffer.byteLength, READ_BUFFER_BYTES);
      assert.equal(ends.length, 2);
    } finally {
      server.close();
    }
  });

  it('pause stops reading and resume reads on (the connection throttles a client this way); a frame longer than the buffer arrives in pieces', async () => {
    const chunks: Buffer[] = [];
    let accepted: Socket | null = null;
    let adopted = false;
    const { server, path } = await listen((s) => {
      accepted = s;
      adopted = adoptReadBuffer(s, (chunk) => chunks.push(Buffer.from(chunk)));
    });
    try {
      const c = connect(path);
      await once(c, 'connect');
      const big = Buffer.alloc(3 * READ_BUFFER_BYTES + 7, 0x61);
      c.write(big);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(adopted, true, 'the accepted socket reads into the shared buffer');
      assert.equal(chunks.length, 0, 'nothing is read while the socket stays paused');
      accepted!.resume();
      const deadline = Date.now() + 10_000;
      while (chunks.reduce((n, b) => n + b.length, 0) < big.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.ok(chunks.length >= 4, `${chunks.length} reads for ${big.length} bytes`);
      assert.ok(chunks.every((b) => b.length <= READ_BUFFER_BYTES));
      assert.ok(Buffer.concat(chunks).equals(big));
      c.destroy();
    } finally {
      server.close();
    }
  });

  it('changes nothing on a socket that is already reading (it keeps its data events)', async () => {
    const got: string[] = [];
    const { server, path } = await listen((s) => {
      s.on('data', (chunk: Buffer) => got.push(chunk.toString()));
      assert.equal(adoptReadBuffer(s, () => assert.fail('the callback must not be installed')), false);
    }, false);
    try {
      const c = connect(path);
      await once(c, 'connect');
      c.end('plain');
      await once(c, 'close');
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(got, ['plain']);
    } finally {
      server.close();
    }
  });
});
