/**
 * The handshake decision: protocol version, profile shape, then the registry's rejection
 * checks. Pure over its inputs; the server sends the outcome and closes refused connections
 * before anything is registered.
 */
import type { HelloRequest } from '../protocol/index.js';
import type { RejectionChecks, Verdict } from './rejection-checks.js';

export type HandshakeOutcome =
  | { accepted: true; profile: { engine: string; version: string }; verdict: Verdict }
  | { accepted: false; reason: 'protocol-mismatch'; clientVersion: number; serverVersion: number }
  | { accepted: false; reason: 'malformed-profile'; problem: string }
  | { accepted: false; reason: 'rejected-profile'; verdict: Verdict; messages: string[] };

export function decideHandshake(hello: HelloRequest, frameVersion: number, serverVersion: number, checks: RejectionChecks): HandshakeOutcome {
  if (hello.protocol !== serverVersion || frameVersion !== serverVersion) {
    return { accepted: false, reason: 'protocol-mismatch', clientVersion: hello.protocol !== serverVersion ? hello.protocol : frameVersion, serverVersion };
  }
  const problem = checks.profileProblem(hello.profile);
  if (problem !== undefined) return { accepted: false, reason: 'malformed-profile', problem };
  const verdict = checks.evaluate(hello.profile);
  if (!verdict.accepted) {
    const messages = verdict.rejections.map((r) => checks.describe(r));
    if (verdict.pin === null) messages.push(`no engine contract pins '${verdict.engine}'`);
    else if (!verdict.pin.matches) messages.push(`${verdict.pin.contract} pins ${verdict.pin.pinned}; the engine is ${verdict.pin.found}`);
    return { accepted: false, reason: 'rejected-profile', verdict, messages };
  }
  const p = hello.profile as { engine: string; version: string };
  return { accepted: true, profile: { engine: p.engine, version: p.version }, verdict };
}
