/** `orbitkv doctor`: real probes of this machine, in text and JSON. */
import assert from 'node:assert/strict';
import { command } from '../../engine/cli/commands/doctor.js';
import type { CliIo } from '../../engine/cli/io.js';
import { readFileSync } from 'node:fs';
import type { CapabilityReport } from '../../native/index.js';
import { type MachineFacts, machineFacts } from './fixtures/machine.js';
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
    assert.equal(report.directIo.folder, scratch.dir);
    assert.match(report.directIo.detail, /O_DIRECT write and read through io_uring/);
    assert.match(report.memlock.soft, /^(\d+|unlimited)$/);
    // What the machine has, read independently of the addon (device nodes, the loader's path, sysctl, seccomp).
    agreesWithMachine(report, machineFacts());
  });

  it('the same expectations hold for the H200 host: its committed doctor report against the facts probed there', () => {
    const report = JSON.parse(readFileSync(new URL('../bench/results/gpu-h200-doctor.json', import.meta.url), 'utf8')) as CapabilityReport;
    // Probed on the H200 host (2026-12-01): /dev/nvidia0, libcuda.so.1 in the loader cache, io_uring_disabled 0, no seccomp.
    const h200: MachineFacts = { gpuNodes: ['/dev/nvidia0'], libcuda: '/usr/local/nvidia/lib64/libcuda.so.1', ioUringDisabled: '0', seccomp: '0' };
    agreesWithMachine(report, h200);
    // And a report that claimed no CUDA there would be caught.
    assert.throws(() => agreesWithMachine({ ...report, cuda: { ...report.cuda, ok: false, devices: [] } }, h200), { name: 'AssertionError' });
  });

  it('prints a line per capability and fails when the data folder is unusable', async () => {
    const io = capture(scratch.dir);
    assert.equal(await command.run(['--data', 'missing/folder'], io), 1);
    assert.match(io.stdout, /^ok {2}native addon/m);
    assert.match(io.stdout, /^no {2}O_DIRECT .*missing\/folder: .*ENOENT/m);
    if (machineFacts().libcuda === null) assert.match(io.stdout, /^no {2}CUDA driver .*libcuda/m);
    else if (machineFacts().gpuNodes.length > 0) assert.match(io.stdout, /^ok {2}CUDA driver/m);
  });

  it('rejects an unknown format as a usage error', async () => {
    await assert.rejects(command.run(['--format', 'xml'], capture(scratch.dir)), { name: 'UsageError' });
  });
});

/** The doctor's report agrees with what the machine has (read without the addon). */
function agreesWithMachine(report: CapabilityReport, facts: MachineFacts): void {
  if (facts.ioUringDisabled === '2') assert.equal(report.ioUring.ok, false, 'kernel.io_uring_disabled=2 refuses io_uring_setup');
  else if (facts.seccomp === '0' && (facts.ioUringDisabled === null || facts.ioUringDisabled === '0')) assert.equal(report.ioUring.ok, true, 'nothing on this machine refuses io_uring');
  assert.equal(report.ioUring.sysctl, facts.ioUringDisabled);
  if (facts.libcuda === null) {
    assert.equal(report.cuda.ok, false, 'no libcuda.so.1 on the loader path');
    assert.match(report.cuda.detail, /libcuda\.so\.1/);
    assert.deepEqual(report.cuda.devices, []);
  } else if (facts.gpuNodes.length === 0) {
    assert.deepEqual(report.cuda.devices, [], `${facts.libcuda} but no /dev/nvidiaN`);
  } else {
    assert.equal(report.cuda.ok, true, `${facts.libcuda} and ${facts.gpuNodes.join(', ')}: ${report.cuda.detail}`);
    assert.match(report.cuda.driverVersion ?? '', /^\d+\.\d+$/);
    // CUDA_VISIBLE_DEVICES may hide some of the device nodes, never add to them.
    assert.ok(report.cuda.devices.length >= 1 && report.cuda.devices.length <= facts.gpuNodes.length, `${report.cuda.devices.length} device(s) for ${facts.gpuNodes.length} node(s)`);
    assert.equal(report.cuda.streamMemOps?.ok, true);
  }
}
