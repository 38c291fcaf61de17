/**
 * The other process of the cross-process VMM check: exports a VMM allocation, fills it with a
 * known pattern, and hands its shareable fd to the checks over an FdChannel (SCM_RIGHTS). Waits
 * for the parent's word before releasing.
 *
 *   node vmm-peer.mjs SOCKET_PATH
 */
import { createHash, randomFillSync } from 'node:crypto';
import { CudaStream, DeviceMemory, FdChannel, HostMemory, cuda, exportVmm } from '../../native/index.js';

const [socketPath] = process.argv.slice(2) as [string];
cuda.useDevice(0);
const exported = exportVmm(4 << 20);
const mine = DeviceMemory.importVmm(exported.fd, exported.size);
const host = HostMemory.alloc(exported.size);
randomFillSync(host.bytes);
const stream = CudaStream.create();
stream.copyHostToDevice(mine, host, [{ dst: 0, src: 0, len: exported.size }]);
await stream.whenDone();
const sha256 = createHash('sha256').update(host.bytes).digest('hex');
const channel = await FdChannel.connect(socketPath);
const done = new Promise<void>((resolve) => channel.once('message', () => resolve()));
await channel.send(Buffer.from(JSON.stringify({ pid: process.pid, size: exported.size, sha256 })), [exported.fd]);
await done;
mine.free();
host.free();
stream.destroy();
exported.release();
channel.close();
