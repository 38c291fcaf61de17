/**
 * What `doctor` finds at the Manager's socket: the folder private to this user (0700, owned
 * by us), the socket and the fd socket 0600 and ours, something answering, and a handshake in
 * this protocol version (an operator handshake: it needs no engine profile). A missing Manager
 * is a warning (nothing is wrong with the machine); anything unsafe or a handshake that fails
 * is an error.
 */
import { lstatSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import { fdSocketPath } from '../endpoint/index.js';
import { OPCODE, PROTOCOL_VERSION } from '../protocol/index.js';
import { ManagerClient } from './manager-client.js';

export interface SocketCheck {
  ok: boolean;
  detail: string;
}

export interface SocketReport {
  path: string;
  folder: SocketCheck;
  socket: SocketCheck;
  fdSocket: SocketCheck;
  reachable: SocketCheck;
  handshake: SocketCheck & { protocol: number | null };
  diagnostics: Diagnostic[];
}

const mode = (st: Stats) => (st.mode & 0o777).toString(8).padStart(4, '0');

function privateEntry(path: string, kind: 'directory' | 'socket', wanted: number): SocketCheck | null {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : { ok: false, detail: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  const isKind = kind === 'directory' ? st.isDirectory() : st.isSocket();
  if (!isKind) return { ok: false, detail: `not a ${kind}` };
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return { ok: false, detail: `owned by uid ${st.uid}, not ${uid}` };
  if ((st.mode & 0o077) !== 0) return { ok: false, detail: `mode ${mode(st)}, wanted ${wanted.toString(8).padStart(4, '0')}` };
  return { ok: true, detail: `mode ${mode(st)}, uid ${st.uid}` };
}

export async function probeManagerSocket(path: string, serve: string): Promise<SocketReport> {
  const diagnostics: Diagnostic[] = [];
  const absent = (what: string): SocketCheck => ({ ok: false, detail: `no ${what}` });
  const folder = privateEntry(dirname(path), 'directory', 0o700) ?? absent('folder');
  const socket = privateEntry(path, 'socket', 0o600) ?? absent('socket');
  const fdSocket = privateEntry(fdSocketPath(path), 'socket', 0o600) ?? absent('fd socket');
  for (const [where, check] of [[dirname(path), folder], [path, socket], [fdSocketPath(path), fdSocket]] as const) {
    if (!check.ok && !check.detail.startsWith('no ')) diagnostics.push(diagnose('doctorSocketUnsafe', {}, where, check.detail));
  }
  let reachable: SocketCheck = { ok: false, detail: 'not tried' };
  let handshake: SocketReport['handshake'] = { ok: false, detail: 'not tried', protocol: null };
  let client: ManagerClient | null = null;
  try {
    client = await ManagerClient.connect(path);
    reachable = { ok: true, detail: 'accepts connections' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    reachable = { ok: false, detail: code };
    diagnostics.push(diagnose('doctorManagerAbsent', {}, path, code, serve));
  }
  if (client) {
    try {
      const reply = await Promise.race([client.request(OPCODE.operator, {}), new Promise<null>((resolve) => setTimeout(() => resolve(null), 2000).unref())]);
      const protocol = reply && typeof reply.body.protocol === 'number' ? reply.body.protocol : null;
      if (reply?.opcode === OPCODE.welcome && protocol === PROTOCOL_VERSION) handshake = { ok: true, detail: `protocol ${protocol}`, protocol };
      else {
        const detail = reply === null ? 'no answer within 2 s' : reply.opcode === OPCODE.welcome ? `it speaks protocol ${String(protocol)}, this tool ${PROTOCOL_VERSION}` : String(reply.body.message ?? `opcode ${reply.opcode}`);
        handshake = { ok: false, detail, protocol };
        diagnostics.push(diagnose('doctorHandshake', {}, path, detail));
      }
    } finally {
      await client.close();
    }
  }
  return { path, folder, socket, fdSocket, reachable, handshake, diagnostics };
}
