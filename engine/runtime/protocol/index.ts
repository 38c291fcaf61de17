export { DEFAULT_MAX_PAYLOAD, FrameDecoder, HEADER_BYTES, MAGIC, PROTOCOL_VERSION, encodeFrame, encodeTextFrame, type Frame, type FrameFault } from './frame.js';
export { OPCODE, OPCODE_NAMES, type OpcodeName } from './opcodes.js';
export { checks, jsonPayload, parsePayload, type HelloRequest, type LookupRequest, type Namespace, type RegisterPagesRequest, type RequestsRequest, type RestoreRequest, type SaveRequest, type TicketRequest } from './messages.js';
