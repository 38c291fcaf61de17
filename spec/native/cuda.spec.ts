/**
 * CUDA on a machine without a driver (CI): `available` is false and every call says why with a
 * CudaUnavailableError. The GPU behaviour itself is proven by spec/gpu on the GPU host.
 */
import assert from 'node:assert/strict';
import { CudaStream, CudaUnavailableError, DeviceMemory, HostMemory, coalesceRuns, cuda, cudaStatus, exportVmm, splitRuns } from '../../native/index.js';

const driverPresent = cudaStatus().available;

describe('native cuda without a driver', () => {
  before(function () {
    if (driverPresent) this.skip(); // a GPU machine: spec/gpu covers it
  });

  it('reports unavailable with the reason', () => {
    assert.equal(cuda.available, false);
    assert.match(cuda.reason, /libcuda\.so\.1/);
  });

  it('throws CudaUnavailableError naming the call and the reason from every entry point', () => {
    const calls: [string, () => unknown][] = [
      ['deviceCount', () => cuda.deviceCount()],
      ['device', () => cuda.device(0)],
      ['useDevice', () => cuda.useDevice(0)],
      ['driverVersion', () => cuda.driverVersion()],
      ['HostMemory.alloc', () => HostMemory.alloc(4096)],
      ['HostMemory.register', () => HostMemory.register(Buffer.alloc(4096))],
      ['DeviceMemory.alloc', () => DeviceMemory.alloc(4096)],
      ['DeviceMemory.openIpc', () => DeviceMemory.openIpc(Buffer.alloc(64), 0, 16)],
      ['DeviceMemory.importVmm', () => DeviceMemory.importVmm(0, 2 << 20)],
      ['exportVmm', () => exportVmm(2 << 20)],
      ['CudaStream.create', () => CudaStream.create()],
    ];
    for (const [name, fn] of calls) {
      assert.throws(fn, (e: unknown) => {
        assert.ok(e instanceof CudaUnavailableError, `${name} threw ${String(e)}`);
        assert.equal(e.code, 'ECUDA_UNAVAILABLE');
        assert.match(e.message, /CUDA is unavailable: .*libcuda\.so\.1/);
        return true;
      });
    }
  });
});

describe('native cuda argument checks (before any driver call)', () => {
  it('requires the size (and a 64-byte handle) to open an IPC mapping: no unchecked destination', () => {
    const openIpc = DeviceMemory.openIpc as (...args: unknown[]) => DeviceMemory;
    assert.throws(() => openIpc(Buffer.alloc(64)), RangeError);
    assert.throws(() => openIpc(Buffer.alloc(64), 0), RangeError);
    assert.throws(() => openIpc(Buffer.alloc(64), 0, 0), RangeError);
    assert.throws(() => openIpc(Buffer.alloc(64), -1, 16), RangeError);
    assert.throws(() => openIpc(Buffer.alloc(32), 0, 16), TypeError);
    assert.throws(() => DeviceMemory.importVmm(3, 0), RangeError);
  });
});

describe('native copy plans', () => {
  it('merges runs contiguous in source and destination, and only those', () => {
    const runs = [
      { dst: 8192, src: 4096, len: 4096 },
      { dst: 4096, src: 0, len: 4096 },
      { dst: 0, src: 8192, len: 4096 }, // contiguous in source only: kept apart
      { dst: 12288, src: 12288, len: 4096 },
      { dst: 16384, src: 16384, len: 0 },
    ];
    assert.deepEqual(coalesceRuns(runs), [
      { dst: 4096, src: 0, len: 8192 },
      { dst: 0, src: 8192, len: 4096 },
      { dst: 12288, src: 12288, len: 4096 },
    ]);
  });

  it('cuts runs at registered-chunk boundaries on the host side only', () => {
    const runs = [{ dst: 100, src: 4000, len: 9000 }];
    assert.deepEqual(splitRuns(runs, [4096, 8192, 16384], 'src'), [
      { dst: 100, src: 4000, len: 96 },
      { dst: 196, src: 4096, len: 4096 },
      { dst: 4292, src: 8192, len: 4808 },
    ]);
    assert.deepEqual(splitRuns(runs, [], 'dst'), runs);
  });
});
