/**
 * What this machine allows the native module to do, probed for real (open a ring, write and
 * read a block with O_DIRECT, touch the driver) rather than guessed from versions.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { addonPath, binding } from './binding.js';
import { CudaStream, HostMemory, cuda, cudaStatus, type CudaDeviceInfo } from './cuda.js';
import { openFile } from './direct-file.js';
import { IoRing } from './io-ring.js';
import { allocAligned } from './memory.js';

export interface Capability {
  ok: boolean;
  detail: string;
}

export interface CapabilityReport {
  addon: Capability & { path: string };
  ioUring: Capability & { sysctl: string | null };
  directIo: Capability & { folder: string };
  memlock: Capability & { soft: string; hard: string };
  cuda: Capability & { driverVersion: string | null; devices: CudaDeviceInfo[]; streamMemOps: Capability | null };
}

export async function probeCapabilities(dataFolder: string): Promise<CapabilityReport> {
  const addon = { ok: true, detail: 'loaded', path: addonPath() };
  try {
    binding();
  } catch (error) {
    addon.ok = false;
    addon.detail = (error as Error).message;
  }
  return {
    addon,
    ioUring: addon.ok ? await probeIoUring() : { ok: false, detail: 'addon unavailable', sysctl: sysctl() },
    directIo: addon.ok ? await probeDirectIo(dataFolder) : { ok: false, detail: 'addon unavailable', folder: dataFolder },
    memlock: memlock(),
    cuda: probeCuda(),
  };
}

function sysctl(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/io_uring_disabled', 'utf8').trim();
  } catch {
    return null;
  }
}

async function probeIoUring(): Promise<CapabilityReport['ioUring']> {
  try {
    const ring = new IoRing({ backend: 'io_uring', depth: 4 });
    await ring.close();
    return { ok: true, detail: 'io_uring_setup allowed', sysctl: sysctl() };
  } catch (error) {
    return { ok: false, detail: `${(error as Error).message}; the thread-pool backend will be used`, sysctl: sysctl() };
  }
}

async function probeDirectIo(folder: string): Promise<CapabilityReport['directIo']> {
  const path = join(folder, `.orbitkv-doctor-${process.pid}`);
  try {
    const file = openFile(path, { create: true });
    const ring = new IoRing({ backend: 'auto', depth: 2 });
    try {
      const block = allocAligned(4096).fill(0x6f);
      const back = allocAligned(4096);
      await ring.write(file, block, 0);
      await ring.read(file, back, 0);
      if (!back.equals(block)) return { ok: false, detail: 'a 4 KiB O_DIRECT block read back differently', folder };
      return { ok: true, detail: `4 KiB O_DIRECT write and read through ${ring.backend}`, folder };
    } finally {
      await ring.close();
      file.close();
      unlinkSync(path);
    }
  } catch (error) {
    return { ok: false, detail: (error as Error).message, folder };
  }
}

function memlock(): CapabilityReport['memlock'] {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max locked memory'));
    const [soft = '?', hard = '?'] = line?.replace('Max locked memory', '').trim().split(/\s+/) ?? [];
    const unlimited = soft === 'unlimited';
    const bytes = unlimited ? Infinity : Number(soft);
    // Registered io_uring buffers count against it unless the process has CAP_IPC_LOCK.
    const ok = unlimited || bytes >= 64 * 1024 * 1024 || process.getuid?.() === 0;
    return { ok, detail: unlimited ? 'unlimited' : `${soft} bytes${ok ? '' : ' (low: registered buffers may fail; raise it with ulimit -l)'}`, soft, hard };
  } catch (error) {
    return { ok: false, detail: (error as Error).message, soft: '?', hard: '?' };
  }
}

function probeCuda(): CapabilityReport['cuda'] {
  const status = cudaStatus();
  if (!status.available) return { ok: false, detail: status.reason, driverVersion: null, devices: [], streamMemOps: null };
  const v = status.driverVersion ?? 0;
  const driverVersion = `${Math.floor(v / 1000)}.${(v % 1000) / 10}`;
  try {
    const devices = cuda.devices();
    return { ok: true, detail: `${devices.length} device(s)`, driverVersion, devices, streamMemOps: devices.length ? probeStreamMemOps() : null };
  } catch (error) {
    return { ok: false, detail: (error as Error).message, driverVersion, devices: [], streamMemOps: null };
  }
}

/** Writes a value to a mapped host flag with cuStreamWriteValue32 and reads it back. */
function probeStreamMemOps(): Capability {
  try {
    cuda.useDevice(0);
    const flag = HostMemory.alloc(4096);
    const stream = CudaStream.create();
    try {
      flag.bytes.writeUInt32LE(0, 0);
      stream.writeValue32(flag.deviceAddress, 0x0b5e55ed);
      stream.synchronize();
      const seen = flag.bytes.readUInt32LE(0);
      return seen === 0x0b5e55ed ? { ok: true, detail: 'cuStreamWriteValue32 on a mapped host flag works' } : { ok: false, detail: `flag read ${seen}` };
    } finally {
      stream.destroy();
      flag.free();
    }
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
}
