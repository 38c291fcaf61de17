/**
 * The Manager's wire framing: a fixed 24-byte header (magic, protocol version, opcode, request
 * id, payload length, header CRC-free reserved word) and a bounded payload. Everything is
 * little-endian. A decoder reads frames from a byte stream and refuses, without buffering
 * past the bound, anything that is not a well-formed frame.
 */

/** 'OKVM' read as a little-endian u32. */
export const MAGIC = 0x4d564b4f;
/**
 * The protocol version this Manager speaks. 2: pages are a sealed memfd deposited on the fd
 * socket (REGISTER_PAGES {pageBytes, pages, layers}, no path), a pending LOOKUP gets an interim
 * LOOKUP_PENDING, ready results carry a grant. 3: LOOKUP_BINARY (a fixed little-endian request
 * and reply, protocol/lookup-binary.ts) beside the JSON LOOKUP. 4: RELEASE_BINARY (the ticket as 8
 * bytes, answered only when refused, protocol/release-binary.ts) beside the JSON RELEASE; a client
 * of 4 would lose its releases to a Manager of 3. An older client is told both versions.
 */
export const PROTOCOL_VERSION = 4;
export const HEADER_BYTES = 24;
/** Default most payload bytes per frame; a larger length closes the connection. */
export const DEFAULT_MAX_PAYLOAD = 64 * 1024;

export interface Frame {
  version: number;
  opcode: number;
  /** Chosen by the client, echoed in the reply; up to 2^53 - 1. */
  requestId: number;
  payload: Buffer;
}

/** Why a byte stream stopped being a frame stream. */
export type FrameFault =
  | { kind: 'bad-magic'; found: number }
  | { kind: 'oversize'; length: number; limit: number }
  | { kind: 'bad-reserved'; found: number }
  /** A request id past 2^53 - 1 (its high word above 0x1fffff): no double names it exactly. */
  | { kind: 'bad-request-id'; found: number }
  | { kind: 'truncated'; have: number; need: number };

/** The largest high word of a request id a double holds exactly (ids up to 2^53 - 1). */
const MAX_ID_HIGH = 0x1f_ffff;

/** One frame as bytes: header then payload. */
export function encodeFrame(opcode: number, requestId: number, payload: Buffer | Uint8Array = Buffer.alloc(0), version = PROTOCOL_VERSION): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.byteLength);
  writeHeader(out, opcode, requestId, payload.byteLength, version);
  out.set(payload, HEADER_BYTES);
  return out;
}

/**
 * One frame whose payload is `text` as UTF-8, encoded straight after the header in one buffer
 * (a reply is one allocation and one write, not a payload buffer copied into a frame).
 */
export function encodeTextFrame(opcode: number, requestId: number, text: string, version = PROTOCOL_VERSION): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const out = Buffer.allocUnsafe(HEADER_BYTES + length);
  writeHeader(out, opcode, requestId, length, version);
  out.write(text, HEADER_BYTES, length, 'utf8');
  return out;
}

/** A frame header at the start of `out` (a reply built in place: header and payload in one buffer). */
export function writeHeader(out: Buffer, opcode: number, requestId: number, length: number, version = PROTOCOL_VERSION): void {
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt16LE(version, 4);
  out.writeUInt16LE(opcode, 6);
  out.writeUInt32LE(requestId % 0x1_0000_0000, 8);
  out.writeUInt32LE(Math.floor(requestId / 0x1_0000_0000), 12);
  out.writeUInt32LE(length, 16);
  out.writeUInt32LE(0, 20);
}

/**
 * Incremental frame reader. `push` returns the frames completed by a chunk, or a fault: the
 * stream is then unusable and the caller closes the connection. Never holds more than one
 * header plus `maxPayload` bytes.
 */
export class FrameDecoder {
  /** Chunks of the frame not yet complete, joined once it is (not once per chunk). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private faulted: FrameFault | null = null;

  constructor(private readonly maxPayload = DEFAULT_MAX_PAYLOAD) {}

  push(chunk: Buffer): { frames: Frame[]; fault: FrameFault | null } {
    if (this.faulted) return { frames: [], fault: this.faulted };
    let data: Buffer;
    if (this.pendingBytes === 0 && chunk.length >= HEADER_BYTES) {
      // Nothing held: the frames are read from the chunk itself (the payloads are copied out below).
      data = chunk;
    } else {
      this.pending.push(Buffer.from(chunk));
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < HEADER_BYTES) return { frames: [], fault: null };
      // The header is in the first chunk once joined; only a small first chunk is joined early.
      if (this.pending[0]!.length < HEADER_BYTES) this.join();
      const head = this.pending[0]!;
      const length = head.readUInt32LE(16);
      // Faults are read from the header before waiting for the payload.
      if (head.readUInt32LE(0) === MAGIC && length <= this.maxPayload && head.readUInt32LE(20) === 0 && head.readUInt32LE(12) <= MAX_ID_HIGH && this.pendingBytes < HEADER_BYTES + length) return { frames: [], fault: null };
      data = this.join();
    }
    const frames: Frame[] = [];
    while (data.length >= HEADER_BYTES) {
      const magic = data.readUInt32LE(0);
      if (magic !== MAGIC) return this.fail({ kind: 'bad-magic', found: magic }, frames);
      const length = data.readUInt32LE(16);
      if (length > this.maxPayload) return this.fail({ kind: 'oversize', length, limit: this.maxPayload }, frames);
      const reserved = data.readUInt32LE(20);
      if (reserved !== 0) return this.fail({ kind: 'bad-reserved', found: reserved }, frames);
      // Refused rather than rounded: a reply must name the id the client sent (and 2^64 would not encode).
      const high = data.readUInt32LE(12);
      if (high > MAX_ID_HIGH) return this.fail({ kind: 'bad-request-id', found: high }, frames);
      if (data.length < HEADER_BYTES + length) break;
      frames.push({
        version: data.readUInt16LE(4),
        opcode: data.readUInt16LE(6),
        requestId: high * 0x1_0000_0000 + data.readUInt32LE(8),
        // A copy: the payload outlives the chunk it arrived in.
        payload: Buffer.from(data.subarray(HEADER_BYTES, HEADER_BYTES + length)),
      });
      data = data.subarray(HEADER_BYTES + length);
    }
    this.pending = data.length === 0 ? [] : [Buffer.from(data)];
    this.pendingBytes = data.length;
    return { frames, fault: null };
  }

  /** The pending chunks as one buffer (which becomes the only pending chunk). */
  private join(): Buffer {
    const one = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [one];
    return one;
  }

  /** At end of stream: a partial frame left over is a truncation. */
  end(): FrameFault | null {
    if (this.faulted) return this.faulted;
    if (this.pendingBytes === 0) return null;
    const head = this.join();
    const need = head.length >= HEADER_BYTES ? HEADER_BYTES + head.readUInt32LE(16) : HEADER_BYTES;
    return { kind: 'truncated', have: head.length, need };
  }

  /** Bytes held waiting for the rest of a frame (bounded by header + maxPayload). */
  get buffered(): number {
    return this.pendingBytes;
  }

  private fail(fault: FrameFault, frames: Frame[]): { frames: Frame[]; fault: FrameFault } {
    this.faulted = fault;
    this.pending = [];
    this.pendingBytes = 0;
    return { frames, fault };
  }
}
