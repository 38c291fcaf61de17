import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startManager, tempDir } from './support.js';

const rejection = (p: Promise<unknown>) => p.then(() => null, (e: { stderr?: string; code?: number }) => e);

/** The socket lock is an flock on `<socket>.lock`: it follows the open file, not a pid. */
describe('runtime: the socket lock (flock beside the socket)', function () {
  this.timeout(120_000);

  it('a lock file naming a live, unrelated pid (a reused pid) does not stop a start', async () => {
    const dir = join(tempDir('lock-pid'), 'run');
    mkdirSync(dir, { mode: 0o700 });
    // pid 1 is alive: a pid lock would refuse here forever.
    writeFileSync(join(dir, 'm.sock.lock'), '1\n', { mode: 0o600 });
    const m = await startManager(['--dram', '256k', '--block-size', '64k'], { socketDir: dir });
    const code = await m.stop();
    assert.equal(code, 0, m.stderr() + ' signal ' + String(m.child.signalCode));
  });

  it('after kill -9 the kernel has released the lock: a new Manager starts on the same socket at once', async () => {
    const dir = join(tempDir('lock-kill'), 'run');
    const first = await startManager(['--dram', '256k', '--block-size', '64k'], { socketDir: dir });
    await first.kill9();
    const second = await startManager(['--dram', '256k', '--block-size', '64k'], { socketDir: dir });
    assert.equal(await second.stop(), 0);
  });

  it('a holder in another PID namespace still excludes a second Manager (OKV7004), which starts once it lets go', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const dir = join(tempDir('lock-ns'), 'run');
    mkdirSync(dir, { mode: 0o700 });
    const lock = join(dir, 'm.sock.lock');
    writeFileSync(lock, '', { mode: 0o600 });
    const holder = spawn('unshare', ['--pid', '--fork', '--mount-proc', 'flock', '--exclusive', lock, 'sh', '-c', 'echo held; read _'], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    try {
      const refused = await rejection(startManager(['--dram', '256k', '--block-size', '64k'], { socketDir: dir }));
      assert.ok(refused, 'the second Manager started');
      assert.match(String(refused.stderr), /OKV7004/);
    } finally {
      holder.stdin.end('\n');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    const m = await startManager(['--dram', '256k', '--block-size', '64k'], { socketDir: dir });
    assert.equal(await m.stop(), 0);
  });
});
