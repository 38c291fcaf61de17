/** Where io_uring is refused (a seccomp filter like Docker's), the refusal is clear and 'auto' falls back. */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DirectIoUnavailableError, allocAligned, openFile, openRing } from '../../native/index.js';
import { binding } from '../../native/lib/binding.js';
import { runFixture, scratchDir } from './fixtures/scratch.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('native backend choice', function () {
  this.timeout(30_000);
  const scratch = scratchDir('choice');
  after(() => scratch.remove());

  it('fails io_uring clearly under seccomp and falls back to the thread pool with auto', async () => {
    const r = await runFixture(fixture('seccomp-deny.ts'), [scratch.path('f.bin')]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { explicit: { name: string; code: string; message: string }; auto: { backend: string; reason: string }; roundTrip: boolean };
    assert.equal(report.explicit.name, 'IoUringUnavailableError');
    assert.equal(report.explicit.code, 'EPERM');
    assert.match(report.explicit.message, /seccomp/);
    assert.deepEqual(report.auto, { backend: 'threadpool', reason: 'io_uring refused (io_uring_setup: EPERM)' });
    assert.equal(report.roundTrip, true);
  });

  it('keeps the seccomp hook out of the production addon (it lives in the test addon)', () => {
    assert.equal('denyIoUringSetup' in binding(), false);
    assert.deepEqual(Object.keys(binding()).filter((name) => /deny|seccomp|sandbox/i.test(name)), []);
  });

  it('says how to rebuild when the addon is missing', async () => {
    const r = await runFixture(fixture('load-missing.ts'), [], 'export ORBITKV_NATIVE_ADDON=/nonexistent/orbitkv_native.node; ');
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { available: boolean; name: string; message: string };
    assert.equal(report.available, false);
    assert.equal(report.name, 'NativeUnavailableError');
    assert.match(report.message, /\/nonexistent\/orbitkv_native\.node is missing.*npm run install/);
  });

  it('refuses O_DIRECT clearly where the file system does, and falls back with direct: auto', async () => {
    // procfs has no direct I/O: the kernel answers EINVAL, as some network and FUSE mounts do.
    assert.throws(() => openFile('/proc/self/status'), (e: unknown) => e instanceof DirectIoUnavailableError && /O_DIRECT is refused for \/proc\/self\/status/.test(e.message));
    const file = openFile('/proc/self/status', { direct: 'auto' });
    assert.equal(file.direct, false);
    const ring = openRing({ backend: 'auto' });
    const buf = allocAligned(4096);
    const n = await ring.read(file, buf, 0);
    assert.match(buf.subarray(0, n).toString(), /^Name:/);
    await ring.close();
    file.close();
  });
});
