import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv doctor [--data DIR] [--format text|json]

Probes what this machine allows the native runtime: io_uring, O_DIRECT on the data folder,
the memlock limit, the CUDA driver, its devices and stream memory operations.
  --data DIR     folder the SSD tier will use (default: ORBITKV_DATA or the current folder)
  --format FMT   text (default) or json
Exit status: 0 when the storage path works (io_uring or its fallback, with O_DIRECT), else 1.
`;

export const command: CommandModule = {
  name: 'doctor',
  summary: 'report io_uring, O_DIRECT, memlock and CUDA capabilities of this machine',
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('doctor', argv, { data: { type: 'string' }, format: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text or --format json');
    const { probeCapabilities } = await import('../../../native/index.js');
    const report = await probeCapabilities(resolve(io.cwd, values.data ?? io.env['ORBITKV_DATA'] ?? '.'));
    const storageOk = report.addon.ok && report.directIo.ok;
    if (format === 'json') {
      io.out(`${JSON.stringify({ ok: storageOk, ...report })}\n`);
      return storageOk ? EXIT.ok : EXIT.failed;
    }
    const mark = (ok: boolean) => (ok ? 'ok  ' : 'no  ');
    const lines = [
      `${mark(report.addon.ok)}native addon        ${report.addon.detail} (${report.addon.path})`,
      `${mark(report.ioUring.ok)}io_uring            ${report.ioUring.detail}${report.ioUring.sysctl !== null ? ` [kernel.io_uring_disabled=${report.ioUring.sysctl}]` : ''}`,
      `${mark(report.directIo.ok)}O_DIRECT            ${report.directIo.folder}: ${report.directIo.detail}`,
      `${mark(report.memlock.ok)}memlock limit       ${report.memlock.detail} (hard ${report.memlock.hard})`,
      `${mark(report.cuda.ok)}CUDA driver         ${report.cuda.ok ? `version ${report.cuda.driverVersion}, ${report.cuda.detail}` : report.cuda.detail}`,
      ...report.cuda.devices.map((d) => `    device ${d.ordinal}            ${d.name}, ${(d.totalMemory / 2 ** 30).toFixed(0)} GiB, sm_${d.computeCapability.replace('.', '')}, ${d.multiprocessors} SMs, PCI ${d.pciBusId}`),
      ...(report.cuda.streamMemOps ? [`${mark(report.cuda.streamMemOps.ok)}stream memory ops   ${report.cuda.streamMemOps.detail}`] : []),
    ];
    io.out(`${lines.join('\n')}\n`);
    return storageOk ? EXIT.ok : EXIT.failed;
  },
};
