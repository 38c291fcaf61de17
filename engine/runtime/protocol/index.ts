export { DEFAULT_MAX_PAYLOAD, FrameDecoder, HEADER_BYTES, MAGIC, PROTOCOL_VERSION, encodeFrame, encodeTextFrame, writeHeader as writeFrameHeader, type Frame, type FrameFault } from './frame.js';
export { OPCODE, OPCODE_NAMES, type OpcodeName } from './opcodes.js';
export { checks, jsonPayload, namespaceId, parsePayload, rememberNamespaceId, type HelloRequest, type LookupRequest, type Namespace, type RegisterPagesRequest, type RequestsRequest, type RestoreRequest, type SaveRequest, type TicketRequest } from './messages.js';
export { LOOKUP_HEAD_BYTES, LOOKUP_REPLY_BYTES, LOOKUP_REPLY_GRANT_AT, LOOKUP_STATES, MAX_HASH_BYTES, MAX_NAME_BYTES, CHAIN_MEMO_BYTES, ChainMemo, NamespaceMemo, decodeLookupReply, decodeLookupRequest, encodeLookupRequest, writeLookupReply, type LookupReplyFields } from './lookup-binary.js';
export { RELEASE_BYTES, decodeReleaseRequest, encodeReleaseRequest } from './release-binary.js';
