/**
 * The CUDA driver API (loaded by the addon with dlopen): devices, pinned host memory, device
 * memory, streams, events, coalesced async copies, a gather kernel for scattered blocks,
 * stream memory operations (the wait a captured graph honours for a later signal), graph
 * capture, CUDA IPC handles and VMM shareable fds.
 *
 * Without a driver, `cuda.available` is false and every call throws `CudaUnavailableError`.
 *
 * @example
 * if (cuda.available) {
 *   cuda.useDevice(0);
 *   const host = HostMemory.alloc(1 << 20), dev = DeviceMemory.alloc(1 << 20), s = CudaStream.create();
 *   s.copyHostToDevice(dev, host, [{ dst: 0, src: 0, len: 1 << 20 }]);
 *   s.synchronize();
 * }
 */
import { binding } from './binding.js';
import { coalesceRuns, packRuns, splitRuns, type CopyRun } from './copy-runs.js';
import { CudaError, CudaUnavailableError, NativeUnavailableError } from './errors.js';
import { liveTracked, track } from './native-finalizers.js';

/** CUdevice_attribute numbers (cuda.h). */
export const DEVICE_ATTRIBUTE = {
  multiprocessorCount: 16,
  unifiedAddressing: 41,
  computeCapabilityMajor: 75,
  computeCapabilityMinor: 76,
  canUseStreamMemOps: 92,
} as const;

/** cuStreamWaitValue32 flags. */
export const WAIT_VALUE = { geq: 0, eq: 1, and: 2, nor: 3 } as const;

export interface CudaDeviceInfo {
  ordinal: number;
  name: string;
  pciBusId: string;
  totalMemory: number;
  computeCapability: string;
  multiprocessors: number;
  /** CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 (null where the driver does not know it). */
  streamMemOpsAttribute: number | null;
}

type RawCuda = Record<string, (...args: any[]) => any>;

/** Native CUDA objects (memory, streams, events, graphs, mappings) not yet released. */
export function liveCudaObjects(): number {
  return liveTracked() + livePinnedBuffers();
}

/** Pinned allocations (HostMemory.alloc) not yet freed, explicitly or by their finalizer. */
export function livePinnedBuffers(): number {
  try {
    return (binding().cuda['livePinned'] as () => number)();
  } catch {
    return 0;
  }
}

function raw(): RawCuda {
  try {
    return binding().cuda;
  } catch (error) {
    if (error instanceof NativeUnavailableError) throw new CudaUnavailableError(error.message);
    throw error;
  }
}

/** Calls one driver wrapper, turning its errors into CudaUnavailableError / CudaError. */
function call<T>(name: string, ...args: unknown[]): T {
  const fn = raw()[name];
  if (!fn) throw new Error(`native cuda.${name} is missing: the addon is older than this module`);
  try {
    return fn(...args) as T;
  } catch (error) {
    const e = error as { code?: string; call?: string; message: string };
    if (e.code === 'ECUDA_UNAVAILABLE') throw new CudaUnavailableError(e.message, e.call ?? name);
    if (e.code?.startsWith('CUDA_ERROR')) throw new CudaError(e.code, e.call ?? name, e.message);
    throw error;
  }
}

/** Driver status: never throws. */
export function cudaStatus(): { available: boolean; reason: string; driverVersion?: number } {
  try {
    return raw()['status']!() as { available: boolean; reason: string; driverVersion?: number };
  } catch (error) {
    return { available: false, reason: (error as Error).message };
  }
}

export const cuda = {
  get available(): boolean {
    return cudaStatus().available;
  },
  /** Why CUDA is unavailable ('' when it is available). */
  get reason(): string {
    return cudaStatus().reason;
  },
  /** Driver version as CUDA encodes it (13000 = 13.0). */
  driverVersion(): number {
    const s = cudaStatus();
    if (!s.available) throw new CudaUnavailableError(s.reason, 'cuDriverGetVersion');
    return s.driverVersion ?? 0;
  },
  deviceCount(): number {
    return call<number>('deviceCount');
  },
  device(ordinal: number): CudaDeviceInfo {
    const attrs = Object.values(DEVICE_ATTRIBUTE);
    const info = call<{ name: string; pciBusId: string; totalMemory: number; attributes: Record<string, number | null> }>('deviceInfo', ordinal, attrs);
    const a = (n: number) => info.attributes[String(n)] ?? null;
    return {
      ordinal,
      name: info.name,
      pciBusId: info.pciBusId,
      totalMemory: info.totalMemory,
      computeCapability: `${a(DEVICE_ATTRIBUTE.computeCapabilityMajor)}.${a(DEVICE_ATTRIBUTE.computeCapabilityMinor)}`,
      multiprocessors: a(DEVICE_ATTRIBUTE.multiprocessorCount) ?? 0,
      streamMemOpsAttribute: a(DEVICE_ATTRIBUTE.canUseStreamMemOps),
    };
  },
  devices(): CudaDeviceInfo[] {
    return Array.from({ length: this.deviceCount() }, (_, i) => this.device(i));
  },
  /** Makes the device's primary context current on this thread. */
  useDevice(ordinal: number): void {
    call('useDevice', ordinal);
  },
};

/** Pinned, device-mapped host memory: allocated by the driver, or existing memory registered. */
export class HostMemory {
  private view: Buffer | null;
  private release: () => void = () => {};
  private constructor(
    readonly address: bigint,
    readonly size: number,
    view: Buffer,
  ) {
    this.view = view;
  }

  /**
   * cuMemHostAlloc (portable, device-mapped). Allocate arenas once: every allocation pins its
   * pages in the driver (CUDA Driver API reference, cuMemHostAlloc), which is slow for large sizes.
   */
  static alloc(size: number): HostMemory {
    checkSize(size);
    // The Buffer owns the pages natively: its finalizer frees them when no view is left, and
    // free() detaches every view and frees them at once, or once the I/O op still reading into
    // or writing from them is reaped (native/src/owned_memory.h).
    const view = call<Buffer>('hostAllocBuffer', size);
    const mem = new HostMemory(binding().bufferAddress(view), size, view);
    mem.release = () => void call('hostRelease', view);
    return mem;
  }

  /**
   * Pins existing memory (for example an `allocAligned` arena) with cuMemHostRegister, in
   * chunks of `chunkBytes` so one huge registration never stalls the driver.
   */
  static register(buffer: Uint8Array, chunkBytes = 256 << 20): HostMemory {
    const base = binding().bufferAddress(buffer);
    // Chunk boundaries on page boundaries, so no page is registered twice.
    const page = 4096n;
    const end = base + BigInt(buffer.byteLength);
    const chunks: [bigint, number][] = [];
    for (let at = base; at < end; ) {
      let next = ((at + BigInt(chunkBytes) + page - 1n) / page) * page;
      if (next > end) next = end;
      chunks.push([at, Number(next - at)]);
      at = next;
    }
    const done: bigint[] = [];
    try {
      for (const [at, size] of chunks) {
        call('hostRegister', at, size);
        done.push(at);
      }
    } catch (error) {
      for (const at of done) call('hostUnregister', at);
      throw error;
    }
    const mem = new HostMemory(base, buffer.byteLength, Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength));
    mem.chunks = done;
    // Unregistered when the memory itself (the caller's ArrayBuffer) is collected, at the latest.
    mem.release = track(buffer.buffer, mem, () => {
      for (const at of done) call('hostUnregister', at);
    });
    return mem;
  }

  private chunks: bigint[] = [];

  /** Byte offsets where one registered chunk ends and the next begins (empty when allocated). */
  get boundaries(): number[] {
    return this.chunks.slice(1).map((at) => Number(at - this.address));
  }

  /** The bytes, as a Buffer over the pinned memory (throws after free). */
  get bytes(): Buffer {
    if (!this.view) throw new CudaError('CUDA_ERROR_INVALID_VALUE', 'HostMemory.bytes', 'freed');
    return this.view;
  }

  /** The address kernels and stream memory operations use for this memory. */
  get deviceAddress(): bigint {
    return call<bigint>('hostDevicePointer', this.address);
  }

  /**
   * Detaches every view now. Allocated memory goes back to the driver at once, or, while an I/O
   * op still holds it (a ring read or write in flight, a ring registration), as soon as the last
   * such op is reaped: the kernel never writes into freed pinned memory. `livePinnedBuffers()`
   * counts it until then. Registered memory is unregistered at once (its pages stay the caller's).
   */
  free(): void {
    if (!this.view) return;
    this.view = null;
    this.release();
  }
}

export class DeviceMemory {
  private readonly release: () => void;
  private constructor(readonly address: bigint, readonly size: number, release: () => void) {
    this.release = track(this, this, release);
  }

  static alloc(size: number): DeviceMemory {
    checkSize(size);
    const ptr = call<bigint>('memAlloc', size);
    return new DeviceMemory(ptr, size, () => call('memFree', ptr));
  }

  /**
   * Opens a CUDA IPC handle made by another process (cudaIpcGetMemHandle / PyTorch's
   * `_share_cuda_`). The handle maps the whole allocation: `offset` and `size` select the
   * tensor, and `size` is required: every copy into it is checked against it.
   */
  static openIpc(handle: Uint8Array, offset: number, size: number): DeviceMemory {
    if (!(handle instanceof Uint8Array) || handle.byteLength !== 64) throw new TypeError('openIpc: the handle is 64 bytes (cudaIpcMemHandle_t)');
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`openIpc: offset must be an integer >= 0, got ${offset}`);
    checkSize(size);
    const base = call<bigint>('ipcOpen', handle);
    return new DeviceMemory(base + BigInt(offset), size, () => call('ipcClose', base));
  }

  /** Imports a VMM allocation from a shareable fd (cuMemExportToShareableHandle in the owner). */
  static importVmm(fd: number, size: number, device = 0): DeviceMemory {
    checkSize(size);
    const { ptr, handle } = call<{ ptr: bigint; handle: bigint }>('vmmImport', fd, size, device);
    return new DeviceMemory(ptr, size, () => call('vmmUnmap', ptr, size, handle));
  }

  /** This allocation's CUDA IPC handle (64 bytes) for another process. */
  ipcHandle(): Buffer {
    return call<Buffer>('ipcGetHandle', this.address);
  }

  free(): void {
    this.release();
  }
}

/** A VMM allocation exported as a POSIX fd, as an engine with expandable segments would. */
export function exportVmm(size: number, device = 0): { fd: number; size: number; release(): void } {
  const granularity = call<number>('vmmGranularity', device);
  const rounded = Math.ceil(size / granularity) * granularity;
  const { handle, fd } = call<{ handle: bigint; fd: number }>('vmmExport', rounded, device);
  const exported = { fd, size: rounded, release: () => {} };
  exported.release = track(exported, exported, () => call('vmmRelease', handle, fd));
  return exported;
}

export class CudaEvent {
  private readonly release: () => void;
  /** A stream that waits for this event, made on the first whenDone(). */
  private waiter: CudaStream | null = null;
  private constructor(readonly handle: bigint) {
    this.release = track(this, this, () => call('eventDestroy', handle));
  }
  static create(): CudaEvent {
    return new CudaEvent(call<bigint>('eventCreate'));
  }
  /** Settles when the work this event last recorded has finished; never blocks the event loop. */
  whenDone(): Promise<void> {
    this.waiter ??= CudaStream.create();
    this.waiter.waitEvent(this);
    return this.waiter.whenDone();
  }
  record(stream: CudaStream): void {
    call('eventRecord', this.handle, stream.handle);
  }
  synchronize(): void {
    call('eventSynchronize', this.handle);
  }
  get done(): boolean {
    return call<boolean>('eventQuery', this.handle);
  }
  /** Milliseconds between two recorded events. */
  static elapsedMs(start: CudaEvent, end: CudaEvent): number {
    return call<number>('eventElapsed', start.handle, end.handle);
  }
  destroy(): void {
    this.waiter?.destroy();
    this.release();
  }
}

export class CudaStream {
  private readonly release: () => void;
  private constructor(readonly handle: bigint) {
    this.release = track(this, this, () => call('streamDestroy', handle));
  }
  static create(): CudaStream {
    return new CudaStream(call<bigint>('streamCreate'));
  }

  /**
   * Settles when everything enqueued on this stream so far has finished (cuLaunchHostFunc: the
   * driver's thread posts to the event loop, which stays free meanwhile).
   */
  whenDone(): Promise<void> {
    return call<Promise<void>>('whenDone', this.handle);
  }

  /** Host → device copies of `runs` (offsets into `src` / `dst`), contiguous runs merged. Returns the copies enqueued. */
  copyHostToDevice(dst: DeviceMemory, src: HostMemory, runs: readonly CopyRun[]): number {
    return this.copy(0, dst.address, src, src.address, runs, dst.size, src.size);
  }
  copyDeviceToHost(dst: HostMemory, src: DeviceMemory, runs: readonly CopyRun[]): number {
    return this.copy(1, dst.address, dst, src.address, runs, dst.size, src.size);
  }
  copyDeviceToDevice(dst: DeviceMemory, src: DeviceMemory, runs: readonly CopyRun[]): number {
    return this.copy(2, dst.address, null, src.address, runs, dst.size, src.size);
  }

  private copy(kind: number, dst: bigint, host: HostMemory | null, src: bigint, runs: readonly CopyRun[], dstSize: number, srcSize: number): number {
    // One run (the common whole-buffer copy) skips planning: small copies are enqueue-bound.
    let merged = runs.length === 1 && !host?.boundaries.length ? runs : coalesceRuns(runs);
    if (host && host.boundaries.length) merged = splitRuns(merged, host.boundaries, kind === 0 ? 'src' : 'dst');
    for (const r of merged) {
      if (r.dst < 0 || r.src < 0 || r.len < 0 || r.dst + r.len > dstSize || r.src + r.len > srcSize) throw new RangeError(`copy run ${r.src}->${r.dst}+${r.len} is out of bounds (${srcSize}-byte source, ${dstSize}-byte destination)`);
      if (host && (kind === 0 ? r.src : r.dst) + r.len > host.size) throw new RangeError(`copy run ${r.src}->${r.dst}+${r.len} is outside the ${host.size}-byte host memory`);
    }
    let packed: Float64Array;
    if (merged.length === 1) {
      packed = oneRun;
      packed[0] = merged[0]!.dst;
      packed[1] = merged[0]!.src;
      packed[2] = merged[0]!.len;
    } else packed = packRuns(merged);
    call('copyRuns', kind, dst, src, packed, merged.length, this.handle);
    return merged.length;
  }

  memset(dst: DeviceMemory, value: number, size = dst.size): void {
    call('memsetAsync', dst.address, value, size, this.handle);
  }

  /** Stream waits until the 32-bit word at `address` (mapped host or device memory) satisfies `flags` against `value`. */
  waitValue32(address: bigint, value: number, flags: number = WAIT_VALUE.geq): void {
    call('waitValue32', this.handle, address, value, flags);
  }
  writeValue32(address: bigint, value: number): void {
    call('writeValue32', this.handle, address, value, 0);
  }
  waitEvent(event: CudaEvent): void {
    call('streamWaitEvent', this.handle, event.handle);
  }

  /** Captures what `body` enqueues on this stream into a graph. */
  capture(body: (stream: CudaStream) => void): CapturedGraph {
    call('beginCapture', this.handle);
    let failure: unknown = null;
    try {
      body(this);
    } catch (error) {
      failure = error;
    }
    const graph = call<bigint>('endCapture', this.handle);
    if (failure) throw failure;
    return new CapturedGraph(graph, call<bigint>('graphInstantiate', graph));
  }

  synchronize(): void {
    call('streamSynchronize', this.handle);
  }
  /** True when all work enqueued so far has finished. */
  get idle(): boolean {
    return call<boolean>('streamQuery', this.handle);
  }
  destroy(): void {
    this.release();
  }
}

export class CapturedGraph {
  private readonly release: () => void;
  constructor(readonly graph: bigint, readonly exec: bigint) {
    this.release = track(this, this, () => call('graphDestroy', exec, graph));
  }
  launch(stream: CudaStream): void {
    call('graphLaunch', this.exec, stream.handle);
  }
  destroy(): void {
    this.release();
  }
}

/**
 * Copies many scattered blocks with one kernel launch instead of one cuMemcpyAsync each. Blocks
 * must be 16-byte aligned, lengths multiples of 16; host memory must be pinned and mapped.
 */
export class Gatherer {
  private readonly fn: bigint;
  /** Two tables in mapped pinned memory, used in turn; the kernel reads its table over the bus. */
  private readonly tables: { mem: HostMemory; device: bigint; done: CudaEvent; used: boolean; chain: Promise<void>; queued: number }[];
  private turn = 0;
  private constructor(readonly capacity: number) {
    this.fn = call<bigint>('gatherLoad');
    this.tables = [0, 1].map(() => {
      const mem = HostMemory.alloc(capacity * 24);
      return { mem, device: mem.deviceAddress, done: CudaEvent.create(), used: false, chain: Promise.resolve(), queued: 0 };
    });
  }
  static create(capacity = 16384): Gatherer {
    return new Gatherer(capacity);
  }

  /**
   * Enqueues the copy of `runs` (absolute device-visible addresses: device memory, or
   * `HostMemory.deviceAddress` plus an offset) on `stream`, one thread block per run.
   */
  enqueue(stream: CudaStream, runs: readonly { src: bigint; dst: bigint; len: number }[], block?: number): void {
    const packed = new Float64Array(runs.length * 3);
    runs.forEach((r, i) => packed.set([Number(r.src), Number(r.dst), r.len], i * 3));
    this.enqueuePacked(stream, packed, runs.length, block);
  }

  /** The same with runs packed as [src, dst, len]* numbers (what a restore plan keeps ready). */
  enqueuePacked(stream: CudaStream, runs: Float64Array, n: number, block = 1024): void {
    if (n === 0) return;
    this.checkRuns(runs, n);
    const table = this.tables[this.turn]!;
    this.turn ^= 1;
    if (table.queued > 0) throw Object.assign(new Error('enqueuePacked: an enqueuePackedAsync still uses this table; use one form per gatherer'), { code: 'EBUSY' });
    if (table.used) table.done.synchronize(); // blocks: the launch that read this table must finish first
    call('gatherLaunch', this.fn, stream.handle, table.mem.address, table.device, this.capacity, runs, n, Math.min(n, 4096), block);
    table.done.record(stream);
    table.used = true;
  }

  /**
   * The same without blocking the event loop: waits (asynchronously) for the launch that last
   * read this table, launches, and settles when the gather has finished on `stream`. `runs` is
   * copied, so the caller may reuse it at once.
   */
  enqueuePackedAsync(stream: CudaStream, runs: Float64Array, n: number, block = 1024): Promise<void> {
    if (n === 0) return Promise.resolve();
    this.checkRuns(runs, n);
    const own = runs.slice(0, n * 3);
    const table = this.tables[this.turn]!;
    this.turn ^= 1;
    table.queued++;
    const done = table.chain.then(async () => {
      if (table.used && !table.done.done) await table.done.whenDone(); // a blocking enqueuePacked's launch
      call('gatherLaunch', this.fn, stream.handle, table.mem.address, table.device, this.capacity, own, n, Math.min(n, 4096), block);
      table.done.record(stream);
      table.used = true;
      return stream.whenDone();
    });
    const settled = done.finally(() => void table.queued--);
    table.chain = settled.then(
      () => undefined,
      () => undefined,
    );
    return settled;
  }

  private checkRuns(runs: Float64Array, n: number): void {
    if (n > this.capacity || n * 3 > runs.length) throw new RangeError(`${n} runs exceed the gatherer's ${this.capacity} or the array`);
    for (let i = 0; i < n * 3; i++) {
      const v = runs[i]!;
      if (!Number.isSafeInteger(v) || v % 16 !== 0) throw new RangeError(`gather run ${Math.floor(i / 3)} is not 16-byte aligned (or not an address)`);
    }
  }

  destroy(): void {
    for (const t of this.tables) {
      if (t.used) t.done.synchronize();
      t.done.destroy();
      t.mem.free();
    }
  }
}

const oneRun = new Float64Array(3);

function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size <= 0) throw new RangeError(`size must be a positive integer, got ${size}`);
}
