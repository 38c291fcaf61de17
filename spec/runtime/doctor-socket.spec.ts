import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { command } from '../../engine/cli/commands/doctor.js';
import { FrameDecoder, OPCODE, encodeFrame } from '../../engine/runtime/index.js';
import { captureIo } from '../support/io.js';
import { startManager, tempDir, type ManagerProcess } from './support.js';

const doctor = async (args: string[]) => {
  const io = captureIo();
  const code = await command.run(['--data', tempDir('doctor-data'), ...args], io);
  return { code, io, json: args.includes('json') ? (JSON.parse(io.stdout) as { ok: boolean; manager: Record<string, { ok: boolean; detail: string; protocol?: number }> & { ok: boolean; diagnostics: { code: string }[] } }) : null };
};

describe('orbitkv doctor: the Manager socket', function () {
  this.timeout(60_000);
  let m: ManagerProcess;
  before(async () => {
    m = await startManager(['--dram', '256k', '--block-size', '64k']);
  });
  after(async () => {
    if (m.child.exitCode === null) await m.stop();
  });

  it('a serving Manager: folder 0700, socket and fd socket 0600, ours, reachable, handshake in this protocol', async () => {
    const { code, json, io } = await doctor(['--socket', m.socket, '--format', 'json']);
    assert.equal(code, 0, io.stdout + io.stderr);
    const mg = json!.manager;
    assert.equal(mg.ok, true);
    for (const k of ['folder', 'socket', 'fdSocket', 'reachable', 'handshake']) assert.equal(mg[k]!.ok, true, `${k}: ${mg[k]!.detail}`);
    assert.match(mg.folder!.detail, /^mode 0700/);
    assert.match(mg.socket!.detail, /^mode 0600/);
    assert.equal(mg.handshake!.protocol, 1);
    const text = await doctor(['--socket', m.socket]);
    assert.match(text.io.stdout, /^ok {2}handshake {11}protocol 1$/m);
  });

  it('a widened folder fails the doctor with OKV7014 naming it', async () => {
    const folder = dirname(m.socket);
    chmodSync(folder, 0o755);
    try {
      const { code, json } = await doctor(['--socket', m.socket, '--format', 'json']);
      assert.equal(code, 1);
      assert.equal(json!.manager.folder!.ok, false);
      assert.deepEqual(json!.manager.diagnostics.map((d) => d.code), ['OKV7014']);
    } finally {
      chmodSync(folder, 0o700);
    }
  });

  it('no Manager is a warning (OKV7015, naming the serve command), not a failure', async () => {
    const dir = join(tempDir('doctor-none'), 'run');
    mkdirSync(dir, { mode: 0o700 });
    const { code, io } = await doctor(['--socket', join(dir, 'm.sock')]);
    assert.equal(code, 0, io.stderr);
    assert.match(io.stdout, /^no {2}Manager answers {5}ENOENT$/m);
    assert.match(io.stderr, /warning OKV7015/);
  });

  it('something answering in another protocol version fails with OKV7016 naming both versions', async () => {
    const dir = join(tempDir('doctor-other'), 'run');
    mkdirSync(dir, { mode: 0o700 });
    const path = join(dir, 'm.sock');
    const server = createServer((s) => {
      const d = new FrameDecoder();
      s.on('data', (c: Buffer) => {
        for (const f of d.push(c).frames) s.write(encodeFrame(OPCODE.welcome, f.requestId, Buffer.from(JSON.stringify({ operator: true, protocol: 99 })), 99));
      });
    });
    await new Promise<void>((r) => server.listen(path, () => r()));
    chmodSync(path, 0o600);
    try {
      const { code, json } = await doctor(['--socket', path, '--format', 'json']);
      assert.equal(code, 1);
      assert.equal(json!.manager.handshake!.ok, false);
      assert.match(json!.manager.handshake!.detail, /protocol 99, this tool 1/);
      assert.ok(json!.manager.diagnostics.some((d) => d.code === 'OKV7016'));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
