/**
 * One question to a running Manager from the CLI: connect, handshake as an operator (no
 * engine profile is needed for status and records), ask, close. Unreachable is a diagnostic.
 */
import { diagnose, type Diagnostic } from '../../diagnostics/index.js';
import { OPCODE } from '../protocol/index.js';
import { ManagerClient } from './manager-client.js';

export async function askManager(socket: string, what: 'status' | 'requests', body: unknown): Promise<{ body: Record<string, unknown> } | { diagnostic: Diagnostic }> {
  let client: ManagerClient;
  try {
    client = await ManagerClient.connect(socket);
  } catch (error) {
    return { diagnostic: diagnose('managerUnreachable', {}, socket, (error as NodeJS.ErrnoException).code ?? String(error)) };
  }
  try {
    const hello = await client.request(OPCODE.operator, {});
    if (hello.opcode !== OPCODE.welcome) return { diagnostic: diagnose('managerUnreachable', {}, socket, String(hello.body.message ?? 'refused')) };
    const reply = await client.request(what === 'status' ? OPCODE.status : OPCODE.requests, body);
    if (reply.opcode === -1 || reply.opcode === OPCODE.error) return { diagnostic: diagnose('managerUnreachable', {}, socket, String(reply.body.message ?? 'closed')) };
    return { body: reply.body };
  } finally {
    await client.close();
  }
}
