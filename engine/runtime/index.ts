/**
 * The runtime: the Manager (`orbitkv serve`) and what it is made of. protocol/ (framing and
 * payload shapes), handshake/ (the registry's rejection checks at connect), tiers/ (DRAM
 * arena, SSD slots and their crash-safe index), catalog/ (which block is where, leases,
 * write-back), lifecycles/ (xstate machines: lookup ticket, save, restore, rank agreement),
 * service/ (the operations), session/ (per-connection state and its drain), pages/ (an
 * engine's registered shared-memory pages), endpoint/ (where the Manager's sockets are),
 * server/ (socket lock, connections, fd deposits, start/stop),
 * metrics/ (prom-client), records/ (the bounded lookup history), collections/ (tables that do
 * not allocate as they churn), client/ (a TypeScript client).
 */
export { ManagerClient, type Reply } from './client/index.js';
export { MANAGER_ENV, MANAGER_NODE_FLAGS, ManagerStartError, lockPath, startManager, type ManagerOptions, type ManagerStatus, type RunningManager } from './server/index.js';
export { defaultSocketPath, fdSocketPath, managerEndpoint, type ManagerEndpoint } from './endpoint/index.js';
export { OPCODE, PROTOCOL_VERSION, HEADER_BYTES, MAGIC, DEFAULT_MAX_PAYLOAD, encodeFrame, FrameDecoder, LOOKUP_HEAD_BYTES, LOOKUP_REPLY_BYTES, LOOKUP_STATES, decodeLookupReply, decodeLookupRequest, encodeLookupRequest, writeLookupReply, RELEASE_BYTES, decodeReleaseRequest, encodeReleaseRequest } from './protocol/index.js';
export { formatSize, parseSize } from './size/index.js';
export { createLogger, type Logger } from './log/index.js';
export { loadRejectionChecks } from './handshake/index.js';
export type { LookupRecord } from './records/index.js';
