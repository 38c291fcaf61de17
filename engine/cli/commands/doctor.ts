import { resolve } from 'node:path';
import { parseCommandLine } from '../args.js';
import { managerSocket } from '../manager-socket.js';
import { type CliIo, type CommandModule, EXIT, UsageError } from '../io.js';

const USAGE = `usage: orbitkv doctor [--data DIR] [--socket PATH] [--registry DIR] [--format text|json]

Probes what this machine allows the native runtime: io_uring, O_DIRECT on the data folder,
the memlock limit, the CUDA driver, its devices and stream memory operations; and the Manager's
socket: its folder 0700 and the socket and fd socket 0600, all this user's, a Manager answering,
and a handshake in this tool's protocol version.
  --data DIR      folder the SSD tier will use (default: ORBITKV_DATA or the current folder)
  --socket PATH   the Manager's socket (default: as \`orbitkv serve\`, from the registry's product)
  --registry DIR  the registry whose product names that default (default ./contracts, else the embedded one)
  --format FMT    text (default) or json
Exit status: 0 when the storage path works (io_uring or its fallback, with O_DIRECT) and nothing
at the socket is unsafe or refuses the handshake (no Manager running is only a warning), else 1.
`;

export const command: CommandModule = {
  name: 'doctor',
  summary: "report io_uring, O_DIRECT, memlock and CUDA capabilities of this machine, and the Manager socket's safety",
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandLine('doctor', argv, { data: { type: 'string' }, socket: { type: 'string' }, registry: { type: 'string' }, format: { type: 'string' } });
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format '${format}'`, 'use --format text or --format json');
    const { probeCapabilities } = await import('../../../native/index.js');
    const report = await probeCapabilities(resolve(io.cwd, values.data ?? io.env['ORBITKV_DATA'] ?? '.'));
    const where = await managerSocket(io, values.socket, values.registry);
    const { probeManagerSocket } = await import('../../runtime/client/index.js');
    const manager = await probeManagerSocket(where.path, where.serve);
    const managerOk = !manager.diagnostics.some((d) => d.severity === 'error');
    const storageOk = report.addon.ok && report.directIo.ok;
    const ok = storageOk && managerOk;
    if (format === 'json') {
      const { diagnostics, ...checks } = manager;
      io.out(`${JSON.stringify({ ok, ...report, manager: { ok: managerOk, ...checks, diagnostics: diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message })) } })}\n`);
      return ok ? EXIT.ok : EXIT.failed;
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
      `${mark(manager.folder.ok)}socket folder       ${manager.folder.detail}`,
      `${mark(manager.socket.ok)}Manager socket      ${manager.path}: ${manager.socket.detail}`,
      `${mark(manager.fdSocket.ok)}fd socket           ${manager.fdSocket.detail}`,
      `${mark(manager.reachable.ok)}Manager answers     ${manager.reachable.detail}`,
      `${mark(manager.handshake.ok)}handshake           ${manager.handshake.detail}`,
    ];
    io.out(`${lines.join('\n')}\n`);
    if (manager.diagnostics.length > 0) {
      const { formatDiagnostics } = await import('../../diagnostics/index.js');
      io.err(formatDiagnostics(manager.diagnostics, { format: 'text', root: io.cwd, cwd: io.cwd, color: false }));
    }
    return ok ? EXIT.ok : EXIT.failed;
  },
};
