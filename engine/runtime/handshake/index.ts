export { loadRejectionChecks, rejectionModuleFor, type RejectionChecks, type Verdict, type VerdictEntry } from './rejection-checks.js';
export { decideHandshake, type HandshakeOutcome } from './handshake.js';
