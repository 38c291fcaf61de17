/** `orbitkv doctor`: real probes of this machine, in text and JSON. */
import assert from 'node:assert/strict';
import { command } from '../../engine/cli/commands/doctor.js';
import type { CliIo } from '../../engine/cli/io.js';
import { scratchDir } from './fixtures/scratch.js';

function capture(cwd: string): CliIo & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', cwd, env: {}, isTty: false, out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

describe('orbitkv doctor', function () {
  this.timeout(20_000);
  const scratch = scratchDir('doctor');
  after(() => scratch.remove());

  it('reports every capability as JSON, from real probes', async () => {
    const io = capture(scratch.dir);
    assert.equal(await command.run(['--format', 'json'], io), 0, io.stderr);
    const report = JSON.parse(io.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.addon.ok, true);
    assert.equal(report.ioUring.ok, true); // CI and the development machines allow io_uring (FACTS.md)
    assert.equal(report.directIo.folder, scratch.dir);
    assert.match(report.directIo.detail, /O_DIRECT write and read through io_uring/);
    assert.match(report.memlock.soft, /^(\d+|unlimited)$/);
    assert.equal(report.cuda.ok, false);
    assert.match(report.cuda.detail, /libcuda\.so\.1/);
    assert.deepEqual(report.cuda.devices, []);
  });

  it('prints a line per capability and fails when the data folder is unusable', async () => {
    const io = capture(scratch.dir);
    assert.equal(await command.run(['--data', 'missing/folder'], io), 1);
    assert.match(io.stdout, /^ok {2}native addon/m);
    assert.match(io.stdout, /^no {2}O_DIRECT .*missing\/folder: .*ENOENT/m);
    assert.match(io.stdout, /^no {2}CUDA driver .*libcuda/m);
  });

  it('rejects an unknown format as a usage error', async () => {
    await assert.rejects(command.run(['--format', 'xml'], capture(scratch.dir)), { name: 'UsageError' });
  });
});
